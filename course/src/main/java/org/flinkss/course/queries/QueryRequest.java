package org.flinkss.course.queries;

import org.flinkss.course.event.BadLines;
import org.flinkss.course.event.SchemaEvolution;
import org.flinkss.runtime.query.RunOptions;

import javax.annotation.Nullable;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * What a run asks of a query of the {@link QueryCatalog}: the run's options (trigger, output mode,
 * where), the API, and the options that only some queries take.
 *
 * @param run where and how the query runs; its output mode is checked by the catalog
 * @param api the DataStream or the Table API version
 * @param rescuedData bronze's rescued data column ({@code --rescued-data})
 * @param skipMissingFiles a planned landing file that is gone is skipped ({@code
 *     --skip-missing-files}); the runner reads it from {@code run}, the catalog only checks it
 * @param kafka the Kafka options, {@link KafkaSettings#NONE} for the other queries
 * @param badLines what a line that is not clean gives ({@code --bad-lines}); null when not given,
 *     which is {@link BadLines#PERMISSIVE}
 * @param schemaEvolution bronze's {@code --schema-evolution}; null when not given, which is {@link
 *     SchemaEvolution#NONE}
 */
public record QueryRequest(
        RunOptions run,
        Api api,
        boolean rescuedData,
        boolean skipMissingFiles,
        KafkaSettings kafka,
        @Nullable BadLines badLines,
        @Nullable SchemaEvolution schemaEvolution) {

    public QueryRequest {
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(api, "api");
        Objects.requireNonNull(kafka, "kafka");
    }

    /** A request without {@code --schema-evolution}. */
    public QueryRequest(
            RunOptions run,
            Api api,
            boolean rescuedData,
            boolean skipMissingFiles,
            KafkaSettings kafka,
            @Nullable BadLines badLines) {
        this(run, api, rescuedData, skipMissingFiles, kafka, badLines, null);
    }

    /** A request without {@code --bad-lines}. */
    public QueryRequest(
            RunOptions run,
            Api api,
            boolean rescuedData,
            boolean skipMissingFiles,
            KafkaSettings kafka) {
        this(run, api, rescuedData, skipMissingFiles, kafka, null);
    }

    /** What a line that is not clean gives: as asked, else Spark's PERMISSIVE mode. */
    public BadLines badLinesOrDefault() {
        return badLines == null ? BadLines.PERMISSIVE : badLines;
    }

    /**
     * What a landed field bronze does not have does: as asked, else {@link SchemaEvolution#NONE}.
     */
    public SchemaEvolution schemaEvolutionOrDefault() {
        return schemaEvolution == null ? SchemaEvolution.NONE : schemaEvolution;
    }

    public QueryRequest withSchemaEvolution(@Nullable SchemaEvolution mode) {
        return new QueryRequest(run, api, rescuedData, skipMissingFiles, kafka, badLines, mode);
    }

    public QueryRequest withBadLines(@Nullable BadLines mode) {
        return new QueryRequest(
                run, api, rescuedData, skipMissingFiles, kafka, mode, schemaEvolution);
    }

    /** A request with no query-specific option. */
    public static QueryRequest of(RunOptions run, Api api) {
        return new QueryRequest(run, api, false, false, KafkaSettings.NONE);
    }

    public QueryRequest withApi(Api other) {
        return new QueryRequest(
                run, other, rescuedData, skipMissingFiles, kafka, badLines, schemaEvolution);
    }

    public QueryRequest withRescuedData(boolean rescued) {
        return new QueryRequest(
                run, api, rescued, skipMissingFiles, kafka, badLines, schemaEvolution);
    }

    public QueryRequest withSkipMissingFiles(boolean skip) {
        return new QueryRequest(run, api, rescuedData, skip, kafka, badLines, schemaEvolution);
    }

    public QueryRequest withKafka(KafkaSettings settings) {
        return new QueryRequest(
                run, api, rescuedData, skipMissingFiles, settings, badLines, schemaEvolution);
    }

    /** The query-specific options this request uses. */
    Set<QueryOption> options() {
        Set<QueryOption> given = EnumSet.noneOf(QueryOption.class);
        if (rescuedData) {
            given.add(QueryOption.RESCUED_DATA);
        }
        if (skipMissingFiles) {
            given.add(QueryOption.SKIP_MISSING_FILES);
        }
        if (badLines != null) {
            given.add(QueryOption.BAD_LINES);
        }
        if (schemaEvolution != null) {
            given.add(QueryOption.SCHEMA_EVOLUTION);
        }
        if (kafka.readsKafka()) {
            given.add(QueryOption.KAFKA_SOURCE);
        }
        if (kafka.topic() != null) {
            given.add(QueryOption.KAFKA_TOPIC);
        }
        if (kafka.hasClientSettings()) {
            given.add(QueryOption.KAFKA_CLIENT);
        }
        return given;
    }
}
