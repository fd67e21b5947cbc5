package org.flinkss.course.queries;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.flinkss.runtime.query.OutputMode;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.source.kafka.KafkaSourceOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.trigger.Trigger;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Each rule of the catalog refuses with its reason; nothing here runs Flink. */
class QueryCatalogTest {

    private static final Path BASE = Paths.get("/nonexistent/flinkss-catalog-test");

    private static RunOptions run(OutputMode mode) {
        return RunOptions.builder().base(Storage.location(BASE.toFile())).outputMode(mode).build();
    }

    private static QueryRequest request(OutputMode mode, Api api) {
        return QueryRequest.of(run(mode), api);
    }

    /** Kafka options as the command line gives them, each only when asked for. */
    private static KafkaSettings kafka(boolean source, String topic, boolean client) {
        return new KafkaSettings() {
            @Override
            public boolean readsKafka() {
                return source;
            }

            @Override
            public KafkaSourceOptions sourceOptions() {
                return KafkaSourceOptions.builder()
                        .bootstrapServers("127.0.0.1:9092")
                        .subscribe("events")
                        .build();
            }

            @Override
            public Map<String, String> clientProperties() {
                return Map.of();
            }

            @Override
            public String bootstrapServers(Map<String, String> clientProperties) {
                return "127.0.0.1:9092";
            }

            @Override
            public String topic() {
                return topic;
            }

            @Override
            public boolean hasClientSettings() {
                return client;
            }
        };
    }

    private static QueryRequest fullRequest(QueryCatalog entry, Api api) {
        QueryRequest request = request(OutputMode.APPEND, api);
        if (entry == QueryCatalog.KAFKA_BRONZE) {
            return request.withKafka(kafka(true, null, true));
        }
        if (entry == QueryCatalog.BRONZE_TO_KAFKA) {
            return request.withKafka(kafka(false, "events-out", true));
        }
        return request;
    }

    @ParameterizedTest
    @EnumSource(QueryCatalog.class)
    void everyQueryBuiltByTheCatalogCarriesItsEntrysName(QueryCatalog entry) {
        for (Api api : entry.apis()) {
            if (entry.isComposite()) {
                List<Query> layers = entry.createLayers(fullRequest(entry, api));
                assertThat(layers)
                        .extracting(Query::name)
                        .containsExactly("bronze", "silver", "gold");
            } else {
                assertThat(entry.create(fullRequest(entry, api)).name())
                        .isEqualTo(entry.queryName())
                        .isEqualTo(entry.toString());
            }
        }
    }

    @Test
    void namesAndTablesAreEachDeclaredOnce() {
        assertThat(QueryCatalog.names()).doesNotHaveDuplicates().contains("view-then-buy-outer");
        Set<String> tables = new HashSet<>();
        for (QueryCatalog entry : QueryCatalog.values()) {
            for (String table : entry.tables()) {
                assertThat(tables.add(table)).as("%s written by two queries", table).isTrue();
            }
        }
        assertThat(QueryCatalog.WIN5.tables()).containsExactly("events_5min", "events_5min_late");
        assertThat(QueryCatalog.VIEW_THEN_BUY_OUTER.table()).isEqualTo("view_then_buy_left");
        assertThat(new ViewThenBuyQuery(true, Api.TABLE).table()).isEqualTo("view_then_buy_left");
        assertThat(WindowQuery.gold(Api.DATASTREAM).source()).isEqualTo("events_silver");
        assertThat(QueryCatalog.WATERMARK_DELAY).isEqualTo(Duration.ofMinutes(10));
    }

    @Test
    void aNameOutsideTheCatalogIsRefusedWithTheList() {
        assertThatThrownBy(() -> QueryCatalog.named("../../other/_cp/bronze"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "unknown query '../../other/_cp/bronze': the queries are bronze, win5,"
                                + " sliding, sessions, dedup, silver, gold, pipeline, enriched,"
                                + " view-then-buy, view-then-buy-outer, latest, kafka-bronze,"
                                + " kafka-events, bronze-to-kafka");
        assertThatThrownBy(() -> QueryCatalog.named("WIN5"))
                .hasMessageStartingWith("unknown query");
        assertThat(QueryCatalog.named("win5")).isSameAs(QueryCatalog.WIN5);
    }

    @Test
    void outerIsTheOuterJoinsOwnEntryAndRefusedElsewhere() {
        assertThat(QueryCatalog.VIEW_THEN_BUY.withOuter(true))
                .isSameAs(QueryCatalog.VIEW_THEN_BUY_OUTER);
        assertThat(QueryCatalog.VIEW_THEN_BUY_OUTER.withOuter(true))
                .isSameAs(QueryCatalog.VIEW_THEN_BUY_OUTER);
        assertThat(QueryCatalog.VIEW_THEN_BUY.withOuter(false))
                .isSameAs(QueryCatalog.VIEW_THEN_BUY);
        assertThatThrownBy(() -> QueryCatalog.WIN5.withOuter(true))
                .hasMessage(
                        "--outer is an option of view-then-buy (its left outer join is the query"
                                + " view-then-buy-outer), not of 'win5'");
    }

    @Test
    void completeWithoutAnAggregationIsRefused() {
        assertThatThrownBy(
                        () ->
                                QueryCatalog.BRONZE.check(
                                        request(OutputMode.COMPLETE, Api.DATASTREAM)))
                .hasMessage(
                        "query 'bronze' cannot run in complete mode: complete output mode needs a"
                                + " streaming aggregation (Spark: \"Complete output mode not"
                                + " supported when there are no streaming aggregations\"); it has"
                                + " none. Use --output-mode append");
        for (QueryCatalog entry :
                List.of(
                        QueryCatalog.DEDUP,
                        QueryCatalog.SILVER,
                        QueryCatalog.ENRICHED,
                        QueryCatalog.LATEST,
                        QueryCatalog.KAFKA_EVENTS,
                        QueryCatalog.BRONZE_TO_KAFKA,
                        QueryCatalog.VIEW_THEN_BUY_OUTER)) {
            assertThatThrownBy(() -> entry.check(request(OutputMode.COMPLETE, Api.DATASTREAM)))
                    .hasMessageContaining("needs a streaming aggregation");
        }
    }

    @Test
    void updateIntoAnAppendOnlyTableIsRefusedNamingTheTable() {
        assertThatThrownBy(
                        () -> QueryCatalog.DEDUP.check(request(OutputMode.UPDATE, Api.DATASTREAM)))
                .hasMessage(
                        "query 'dedup' cannot run in update mode: its sink, the table events_dedup,"
                                + " takes appends only (as a Delta table sink: append or"
                                + " complete). Without an aggregation update writes the same rows"
                                + " as append: use --output-mode append");
        assertThatThrownBy(
                        () -> QueryCatalog.BRONZE.check(request(OutputMode.UPDATE, Api.DATASTREAM)))
                .hasMessageContaining("events_bronze, takes appends only");
        // An upsert already: update writes what append writes.
        QueryCatalog.LATEST.check(request(OutputMode.UPDATE, Api.DATASTREAM));
        QueryCatalog.BRONZE_TO_KAFKA.check(
                request(OutputMode.UPDATE, Api.DATASTREAM).withKafka(kafka(false, "t", true)));
    }

    @Test
    void updateOfAStreamStreamJoinIsRefusedWithSparksWords() {
        for (QueryCatalog join :
                List.of(QueryCatalog.VIEW_THEN_BUY, QueryCatalog.VIEW_THEN_BUY_OUTER)) {
            assertThatThrownBy(() -> join.check(request(OutputMode.UPDATE, Api.TABLE)))
                    .hasMessageStartingWith("query '" + join + "' cannot run in update mode")
                    .hasMessageContaining(
                            "\"Join between two streaming DataFrames/Datasets is not supported in"
                                    + " Update output mode, only in Append output mode\"");
        }
    }

    @Test
    void sessionsRefuseUpdateAndCompleteOnlyInFlinkSql() {
        assertThatThrownBy(
                        () ->
                                QueryCatalog.SESSIONS.check(
                                        request(OutputMode.UPDATE, Api.DATASTREAM)))
                .hasMessageContaining("Spark refuses update mode for session windows too")
                .hasMessageEndingWith("Use --output-mode append or complete");
        assertThatThrownBy(
                        () -> QueryCatalog.SESSIONS.check(request(OutputMode.COMPLETE, Api.TABLE)))
                .hasMessage(
                        "query 'sessions' cannot run in complete mode with --api table: Flink SQL's"
                                + " session windows write a session only when it closes. Use --api"
                                + " datastream for complete mode");
        QueryCatalog.SESSIONS.check(request(OutputMode.COMPLETE, Api.DATASTREAM));
        for (QueryCatalog window :
                List.of(QueryCatalog.WIN5, QueryCatalog.SLIDING, QueryCatalog.GOLD)) {
            for (OutputMode mode : OutputMode.values()) {
                for (Api api : Api.values()) {
                    window.check(request(mode, api));
                }
            }
        }
    }

    @Test
    void thePipelineRunsInAppendModeAndAvailableNowOnly() {
        assertThatThrownBy(
                        () ->
                                QueryCatalog.PIPELINE.check(
                                        request(OutputMode.COMPLETE, Api.DATASTREAM)))
                .hasMessage(
                        "the pipeline writes its three layers in append mode, as the course's"
                                + " run_layer; for gold in complete mode, run gold --output-mode"
                                + " complete");
        assertThatThrownBy(() -> QueryCatalog.PIPELINE.check(request(OutputMode.UPDATE, Api.TABLE)))
                .hasMessageContaining("run gold --output-mode update");
        RunOptions every10s =
                RunOptions.builder()
                        .base(Storage.location(BASE.toFile()))
                        .trigger(Trigger.processingTime(Duration.ofSeconds(10)))
                        .build();
        assertThatThrownBy(() -> QueryCatalog.PIPELINE.check(QueryRequest.of(every10s, Api.TABLE)))
                .hasMessage(
                        "the pipeline runs its layers (bronze, silver, gold) one after the other,"
                                + " so it only takes the available-now trigger; to keep layers"
                                + " running, run each with --trigger processing-time=10000ms");
        QueryCatalog.GOLD.check(QueryRequest.of(every10s, Api.TABLE));
    }

    @Test
    void thePipelineIsNotOneQuery() {
        assertThatThrownBy(() -> QueryCatalog.PIPELINE.single("reset"))
                .hasMessage(
                        "'pipeline' is 3 queries, each with its own checkpoint: use 'reset"
                                + " bronze', 'reset silver', 'reset gold'");
        assertThatThrownBy(
                        () -> QueryCatalog.PIPELINE.create(request(OutputMode.APPEND, Api.TABLE)))
                .hasMessageStartingWith("'pipeline' is 3 queries (bronze, silver, gold)");
        assertThat(QueryCatalog.WIN5.single("reset")).isSameAs(QueryCatalog.WIN5);
    }

    @Test
    void aQueryWrittenInOneApiRefusesTheOther() {
        assertThatThrownBy(() -> QueryCatalog.BRONZE.check(request(OutputMode.APPEND, Api.TABLE)))
                .hasMessage(
                        "query 'bronze' is written in the DataStream API only: use --api"
                                + " datastream");
        List<QueryCatalog> dataStreamOnly = new ArrayList<>();
        for (QueryCatalog entry : QueryCatalog.values()) {
            if (!entry.apis().contains(Api.TABLE)) {
                dataStreamOnly.add(entry);
            }
        }
        assertThat(dataStreamOnly)
                .containsExactly(
                        QueryCatalog.BRONZE,
                        QueryCatalog.LATEST,
                        QueryCatalog.KAFKA_BRONZE,
                        QueryCatalog.KAFKA_EVENTS,
                        QueryCatalog.BRONZE_TO_KAFKA);
    }

    @Test
    void anOptionOfAnotherQueryIsRefusedNamingTheQueriesThatTakeIt() {
        QueryRequest append = request(OutputMode.APPEND, Api.DATASTREAM);
        assertThatThrownBy(() -> QueryCatalog.WIN5.check(append.withSkipMissingFiles(true)))
                .hasMessage(
                        "--skip-missing-files is an option of the queries that read landing files"
                                + " (bronze, pipeline), not of 'win5'");
        assertThatThrownBy(() -> QueryCatalog.KAFKA_BRONZE.check(append.withRescuedData(true)))
                .hasMessage(
                        "--rescued-data is an option of the queries that parse landing files"
                                + " (bronze, pipeline), not of 'kafka-bronze': kafka-bronze lands"
                                + " the raw records, with no schema to rescue from");
        assertThatThrownBy(
                        () -> QueryCatalog.BRONZE.check(append.withKafka(kafka(true, null, false))))
                .hasMessage(
                        "--subscribe, --subscribe-pattern, --assign, --starting-offsets,"
                                + " --max-offsets-per-trigger and --fail-on-data-loss are options"
                                + " of the query that reads a topic (kafka-bronze), not of"
                                + " 'bronze'");
        assertThatThrownBy(
                        () ->
                                QueryCatalog.KAFKA_BRONZE.check(
                                        append.withKafka(kafka(true, "out", true))))
                .hasMessage(
                        "--topic is an option of the query that writes to a topic"
                                + " (bronze-to-kafka), not of 'kafka-bronze': to read a topic, use"
                                + " --subscribe T");
        assertThatThrownBy(
                        () ->
                                QueryCatalog.KAFKA_EVENTS.check(
                                        append.withKafka(kafka(false, null, true))))
                .hasMessage(
                        "--bootstrap-servers and --kafka-properties are options of the queries"
                                + " that talk to Kafka (kafka-bronze, bronze-to-kafka), not of"
                                + " 'kafka-events'");
        QueryCatalog.PIPELINE.check(append.withRescuedData(true).withSkipMissingFiles(true));
    }

    @Test
    void theCatalogBuildsAWindowQueryInTheRunsModeWithoutChangingAnother() {
        WindowQuery append =
                (WindowQuery) QueryCatalog.WIN5.create(run(OutputMode.APPEND), Api.TABLE);
        WindowQuery complete =
                (WindowQuery) QueryCatalog.WIN5.create(run(OutputMode.COMPLETE), Api.TABLE);
        assertThat(complete).isNotSameAs(append);
        assertThat(append.withOutputMode(run(OutputMode.COMPLETE))).isNotSameAs(append);
        assertThat(QueryCatalog.SESSIONS.create(run(OutputMode.APPEND), Api.DATASTREAM))
                .isInstanceOf(WindowQuery.class)
                .matches(q -> ((WindowQuery) q).isSessions());
    }

    @Test
    void apiIsReadInAnyCaseAndAnUnknownOneListsTheChoices() {
        assertThat(Api.parse("Table")).isEqualTo(Api.TABLE);
        assertThat(Api.parse(" DATASTREAM ")).isEqualTo(Api.DATASTREAM);
        assertThat(Api.TABLE.text()).isEqualTo("table");
        assertThatThrownBy(() -> Api.parse("sql"))
                .hasMessage("unknown --api 'sql': use datastream or table");
    }
}
