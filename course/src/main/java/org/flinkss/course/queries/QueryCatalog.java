package org.flinkss.course.queries;

import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.query.OutputMode;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.sink.jdbc.Database;
import org.flinkss.runtime.source.kafka.KafkaTables;

import javax.annotation.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The course's queries, one entry each: the name every command uses (its checkpoint is {@code
 * <base>/_cp/<name>}), the tables it writes, the APIs it exists in, the output modes it refuses
 * with Spark's reason, the options only it takes, and how it is built. Adding a query means adding
 * one entry. Every check of a query's options, API and output mode is {@link #check} here, before
 * anything runs.
 *
 * <p>{@link #name()} is the Java constant ({@code WIN5}); {@link #queryName()} and {@link
 * #toString()} are the name of the command line ({@code win5}).
 */
public enum QueryCatalog {
    BRONZE(
            query("bronze")
                    .writes(
                            EventTables.BRONZE,
                            EventTables.BRONZE + EventTables.QUARANTINE_SUFFIX,
                            EventTables.BRONZE + EventTables.SKIPPED_FILES_SUFFIX)
                    .apis(Api.DATASTREAM)
                    .refuses(Refusal.COMPLETE_WITHOUT_AGGREGATION, Refusal.UPDATE_INTO_TABLE)
                    .options(
                            QueryOption.RESCUED_DATA,
                            QueryOption.SKIP_MISSING_FILES,
                            QueryOption.BAD_LINES,
                            QueryOption.SCHEMA_EVOLUTION)
                    .creates(
                            r ->
                                    new BronzeQuery(
                                            r.run().events(),
                                            r.rescuedData(),
                                            r.badLinesOrDefault(),
                                            r.schemaEvolutionOrDefault()))),
    WIN5(
            query("win5")
                    .writesWithLateRows("events_5min")
                    .creates(r -> WindowQuery.win5(r.api()).withOutputMode(r.run()))),
    SLIDING(
            query("sliding")
                    .writesWithLateRows("events_sliding")
                    .creates(r -> WindowQuery.sliding(r.api()).withOutputMode(r.run()))),
    SESSIONS(
            query("sessions")
                    .writesWithLateRows("events_sessions")
                    .refuses(Refusal.UPDATE_OF_SESSIONS, Refusal.COMPLETE_SESSIONS_IN_SQL)
                    .creates(r -> WindowQuery.sessions(r.api()).withOutputMode(r.run()))),
    DEDUP(
            query("dedup")
                    .writesWithLateRows("events_dedup")
                    .refuses(Refusal.COMPLETE_WITHOUT_AGGREGATION, Refusal.UPDATE_INTO_TABLE)
                    .creates(r -> DedupQuery.dedup(r.api()))),
    SILVER(
            query("silver")
                    .writesWithLateRows("events_silver")
                    .refuses(Refusal.COMPLETE_WITHOUT_AGGREGATION, Refusal.UPDATE_INTO_TABLE)
                    .creates(r -> DedupQuery.silver(r.api()))),
    GOLD(
            query("gold")
                    .writesWithLateRows("events_by_type")
                    .creates(r -> WindowQuery.gold(r.api()).withOutputMode(r.run()))),
    PIPELINE(
            query("pipeline")
                    .refuses(Refusal.PIPELINE_NOT_IN_APPEND)
                    .availableNowOnly()
                    .options(
                            QueryOption.RESCUED_DATA,
                            QueryOption.SKIP_MISSING_FILES,
                            QueryOption.BAD_LINES)
                    .layers(BRONZE, SILVER, GOLD)),
    ENRICHED(
            query("enriched")
                    .writes("events_enriched")
                    .refuses(Refusal.COMPLETE_WITHOUT_AGGREGATION, Refusal.UPDATE_INTO_TABLE)
                    .creates(r -> new EnrichedQuery(r.run().warehouse(), r.api()))),
    VIEW_THEN_BUY(
            query("view-then-buy")
                    .writesWithLateRows("view_then_buy")
                    .refuses(Refusal.UPDATE_OF_STREAM_JOIN, Refusal.COMPLETE_WITHOUT_AGGREGATION)
                    .creates(r -> new ViewThenBuyQuery(false, r.api()))),
    /** {@code run view-then-buy --outer} is this query: its own checkpoint and table. */
    VIEW_THEN_BUY_OUTER(
            query("view-then-buy-outer")
                    .outerJoinOf(VIEW_THEN_BUY)
                    .writesWithLateRows("view_then_buy_left")
                    .refuses(Refusal.UPDATE_OF_STREAM_JOIN, Refusal.COMPLETE_WITHOUT_AGGREGATION)
                    .creates(r -> new ViewThenBuyQuery(true, r.api()))),
    /**
     * {@code events_bronze} upserted on {@code event_id}, MERGEd into the Delta table by default or
     * into the SQL database given with {@code --jdbc-url}: of several rows with one id in a batch,
     * the last in bronze's order (version, file as its log adds it, row) wins, as a later batch
     * would have written it (Spark's MERGE fails on such a batch; docs/semantics.md).
     */
    LATEST(
            query("latest")
                    .writes("events_latest")
                    .apis(Api.DATASTREAM)
                    // An upsert already: update writes the same rows as append.
                    .refuses(Refusal.COMPLETE_WITHOUT_AGGREGATION)
                    .creates(
                            r ->
                                    r.run().hasJdbcUrl()
                                            ? new LatestQuery(r.run().database())
                                            : new LatestQuery())),
    KAFKA_BRONZE(
            query("kafka-bronze")
                    .writes(KafkaTables.BRONZE)
                    .apis(Api.DATASTREAM)
                    .refuses(Refusal.COMPLETE_WITHOUT_AGGREGATION, Refusal.UPDATE_INTO_TABLE)
                    .options(QueryOption.KAFKA_SOURCE, QueryOption.KAFKA_CLIENT)
                    .creates(r -> new KafkaBronzeQuery(r.kafka().sourceOptions()))),
    KAFKA_EVENTS(
            query("kafka-events")
                    .writes(KafkaTables.EVENTS, KafkaTables.EVENTS_QUARANTINE)
                    .apis(Api.DATASTREAM)
                    .refuses(Refusal.COMPLETE_WITHOUT_AGGREGATION, Refusal.UPDATE_INTO_TABLE)
                    .options(QueryOption.BAD_LINES)
                    .creates(r -> new KafkaEventsQuery(r.badLinesOrDefault()))),
    /** Writes a topic, no table. */
    BRONZE_TO_KAFKA(
            query("bronze-to-kafka")
                    .apis(Api.DATASTREAM)
                    .refuses(Refusal.COMPLETE_WITHOUT_AGGREGATION)
                    .options(QueryOption.KAFKA_TOPIC, QueryOption.KAFKA_CLIENT)
                    .creates(
                            r -> {
                                var properties = r.kafka().clientProperties();
                                return new BronzeToKafkaQuery(
                                        r.kafka().bootstrapServers(properties),
                                        r.kafka().topic(),
                                        properties);
                            }));

    /**
     * The watermark delay of every stateful query of the course: {@code withWatermark(..., "10
     * minutes")}.
     */
    public static final Duration WATERMARK_DELAY = Duration.ofMinutes(10);

    private final String queryName;
    private final List<String> tables;
    private final Set<Api> apis;
    private final Set<Refusal> refusals;
    private final Set<QueryOption> options;
    private final boolean availableNowOnly;
    @Nullable private final QueryCatalog outerJoinOf;
    @Nullable private final Function<QueryRequest, Query> factory;
    @Nullable private final List<QueryCatalog> layers;

    QueryCatalog(Spec spec) {
        this.queryName = spec.name;
        this.tables = List.copyOf(spec.tables);
        this.apis = spec.apis;
        this.refusals = spec.refusals;
        this.options = spec.options;
        this.availableNowOnly = spec.availableNowOnly;
        this.outerJoinOf = spec.outerJoinOf;
        this.factory = spec.factory;
        this.layers = spec.layers;
    }

    /** The name of the command line: {@code run}, {@code progress}, {@code reset} take it. */
    public String queryName() {
        return queryName;
    }

    @Override
    public String toString() {
        return queryName;
    }

    /** Every table the query writes, its main table first (late rows, quarantine ... after). */
    public List<String> tables() {
        return tables;
    }

    /** The main table the query writes. */
    public String table() {
        if (tables.isEmpty()) {
            throw new IllegalStateException("query '" + queryName + "' writes no table");
        }
        return tables.get(0);
    }

    public Set<Api> apis() {
        return apis;
    }

    /** The options that only some queries take, of which this one takes these. */
    public Set<QueryOption> options() {
        return options;
    }

    /** The queries a composite query runs one after the other; the query itself otherwise. */
    public List<QueryCatalog> layers() {
        return layers != null ? layers : List.of(this);
    }

    /** Whether the query is several queries, each with its own checkpoint ({@code pipeline}). */
    public boolean isComposite() {
        return layers != null;
    }

    /** Every query name, in the catalog's order. */
    public static List<String> names() {
        return Arrays.stream(values()).map(QueryCatalog::queryName).collect(Collectors.toList());
    }

    /** The query of that name, if the catalog has one. */
    public static Optional<QueryCatalog> find(String name) {
        return Arrays.stream(values()).filter(q -> q.queryName.equals(name)).findFirst();
    }

    /**
     * The query of that name, or a refusal that lists the queries: a name is never a path, so no
     * command reaches a folder outside {@code <base>/_cp}.
     */
    public static QueryCatalog named(String name) {
        return find(name)
                .orElseThrow(
                        () ->
                                new IllegalArgumentException(
                                        "unknown query '"
                                                + name
                                                + "': the queries are "
                                                + String.join(", ", names())));
    }

    /**
     * This query with {@code --outer}: the outer join's own entry ({@code view-then-buy} gives
     * {@code view-then-buy-outer}, which stays itself); refused for a query without one.
     */
    public QueryCatalog withOuter(boolean outer) {
        if (!outer || outerJoinOf != null) {
            return this;
        }
        for (QueryCatalog q : values()) {
            if (q.outerJoinOf == this) {
                return q;
            }
        }
        List<String> joins = new ArrayList<>();
        for (QueryCatalog q : values()) {
            if (q.outerJoinOf != null) {
                joins.add(q.outerJoinOf + " (its left outer join is the query " + q + ")");
            }
        }
        throw new IllegalArgumentException(
                "--outer is an option of " + String.join(", ", joins) + ", not of '" + this + "'");
    }

    /**
     * Refuses, with the reason and the way out, what this query does not take: an option of another
     * query, an API it is not written in, a trigger or an output mode it cannot run in.
     */
    public void check(QueryRequest request) {
        for (QueryOption option : request.options()) {
            if (!options.contains(option)) {
                throw new IllegalArgumentException(option.refusal(this));
            }
        }
        if (!apis.contains(request.api())) {
            throw new IllegalArgumentException(
                    "query '"
                            + queryName
                            + "' is written in the "
                            + apis.stream()
                                    .map(a -> a == Api.TABLE ? "Table" : "DataStream")
                                    .collect(Collectors.joining(" and "))
                            + " API only: use --api "
                            + apis.stream().map(Api::text).collect(Collectors.joining(" or ")));
        }
        RunOptions run = request.run();
        if (availableNowOnly && !run.trigger().isAvailableNow()) {
            throw new IllegalArgumentException(
                    "the "
                            + queryName
                            + " runs its layers ("
                            + layers().stream()
                                    .map(QueryCatalog::queryName)
                                    .collect(Collectors.joining(", "))
                            + ") one after the other, so it only takes the available-now trigger;"
                            + " to keep layers running, run each with --trigger "
                            + run.trigger());
        }
        OutputMode mode = run.outputMode();
        for (Refusal refusal : refusals) {
            if (refusal.modes.contains(mode)
                    && (refusal.api == null || refusal.api == request.api())) {
                throw new IllegalArgumentException(
                        String.format(
                                Locale.ROOT,
                                refusal.reason,
                                queryName,
                                tables.isEmpty() ? "" : table(),
                                mode.text()));
            }
        }
    }

    /**
     * This query, which has one checkpoint; a composite query is refused, naming the commands for
     * its layers.
     *
     * @param command the command that needs one checkpoint: {@code progress}, {@code reset}
     */
    public QueryCatalog single(String command) {
        if (!isComposite()) {
            return this;
        }
        throw new IllegalArgumentException(
                "'"
                        + queryName
                        + "' is "
                        + layers().size()
                        + " queries, each with its own checkpoint: use "
                        + layers().stream()
                                .map(layer -> "'" + command + " " + layer + "'")
                                .collect(Collectors.joining(", ")));
    }

    /** The query, once {@link #check}ed; a composite query is built by {@link #createLayers}. */
    public Query create(QueryRequest request) {
        check(request);
        if (factory == null) {
            throw new IllegalArgumentException(
                    "'"
                            + queryName
                            + "' is "
                            + layers().size()
                            + " queries ("
                            + layers().stream()
                                    .map(QueryCatalog::queryName)
                                    .collect(Collectors.joining(", "))
                            + "), each with its own checkpoint: run it with 'run "
                            + queryName
                            + "' or Pipeline.run");
        }
        return factory.apply(request);
    }

    /** The query in {@code api}, with no query-specific option. */
    public Query create(RunOptions run, Api api) {
        return create(QueryRequest.of(run, api));
    }

    /**
     * A composite query's layers, each built for its own part of the request: the first layer reads
     * the landing files, so only it takes their options; every layer writes in append mode.
     */
    public List<Query> createLayers(QueryRequest request) {
        check(request);
        List<Query> built = new ArrayList<>();
        for (QueryCatalog layer : layers()) {
            QueryRequest forLayer =
                    layer.options.contains(QueryOption.RESCUED_DATA)
                            ? request
                            : request.withRescuedData(false)
                                    .withSkipMissingFiles(false)
                                    .withBadLines(null);
            if (!layer.apis.contains(request.api())) {
                // --api is for the layers written in both: bronze has one version.
                forLayer = forLayer.withApi(layer.apis.iterator().next());
            }
            built.add(layer.create(forLayer));
        }
        return built;
    }

    /**
     * The database of an update-mode run's upserts, given with {@code --jdbc-url}; none without one
     * (update mode MERGEs into the Delta table) and in the other modes.
     */
    @Nullable
    static Database updateDatabase(RunOptions run) {
        return run.outputMode() == OutputMode.UPDATE && run.hasJdbcUrl() ? run.database() : null;
    }

    /**
     * How a query that MERGEs into the Delta table {@code table} marks it in its identity (a
     * stateful operator's name): a checkpoint of the SQL path, which wrote another table of that
     * name, is refused by it, and the other way round.
     */
    static String deltaMerge(String table) {
        return "MERGE INTO " + table + " (Delta)";
    }

    /**
     * Why a query cannot run in some output modes (with one API, or any), as Spark says it, and
     * what to do instead. Format arguments: 1 the query, 2 its main table, 3 the mode.
     */
    enum Refusal {
        COMPLETE_WITHOUT_AGGREGATION(
                EnumSet.of(OutputMode.COMPLETE),
                null,
                "query '%1$s' cannot run in complete mode: complete output mode needs a streaming"
                        + " aggregation (Spark: \"Complete output mode not supported when there are"
                        + " no streaming aggregations\"); it has none. Use --output-mode append"),
        UPDATE_INTO_TABLE(
                EnumSet.of(OutputMode.UPDATE),
                null,
                "query '%1$s' cannot run in update mode: its sink, the table %2$s, takes appends"
                        + " only (as a Delta table sink: append or complete). Without an"
                        + " aggregation update writes the same rows as append: use --output-mode"
                        + " append"),
        UPDATE_OF_STREAM_JOIN(
                EnumSet.of(OutputMode.UPDATE),
                null,
                "query '%1$s' cannot run in update mode: a join of two streams writes in append"
                        + " mode only, as in Spark (\"Join between two streaming"
                        + " DataFrames/Datasets is not supported in Update output mode, only in"
                        + " Append output mode\"). Use --output-mode append"),
        UPDATE_OF_SESSIONS(
                EnumSet.of(OutputMode.UPDATE),
                null,
                "query '%1$s' cannot run in update mode: a session window grows and merges, so its"
                        + " row's key (window_start, window_end) changes and update would leave"
                        + " the old rows behind; Spark refuses update mode for session windows"
                        + " too. Use --output-mode append or complete"),
        COMPLETE_SESSIONS_IN_SQL(
                EnumSet.of(OutputMode.COMPLETE),
                Api.TABLE,
                "query '%1$s' cannot run in complete mode with --api table: Flink SQL's session"
                        + " windows write a session only when it closes. Use --api datastream for"
                        + " complete mode"),
        PIPELINE_NOT_IN_APPEND(
                EnumSet.of(OutputMode.UPDATE, OutputMode.COMPLETE),
                null,
                "the %1$s writes its three layers in append mode, as the course's run_layer; for"
                        + " gold in %3$s mode, run gold --output-mode %3$s");

        final Set<OutputMode> modes;
        @Nullable final Api api;
        final String reason;

        Refusal(Set<OutputMode> modes, @Nullable Api api, String reason) {
            this.modes = modes;
            this.api = api;
            this.reason = reason;
        }
    }

    private static Spec query(String name) {
        return new Spec(name);
    }

    /** An entry as it is declared; defaults: both APIs, every output mode, no own option. */
    private static final class Spec {
        final String name;
        final List<String> tables = new ArrayList<>();
        Set<Api> apis = EnumSet.allOf(Api.class);
        final Set<Refusal> refusals = EnumSet.noneOf(Refusal.class);
        Set<QueryOption> options = EnumSet.noneOf(QueryOption.class);
        boolean availableNowOnly;
        QueryCatalog outerJoinOf;
        Function<QueryRequest, Query> factory;
        List<QueryCatalog> layers;

        Spec(String name) {
            this.name = name;
        }

        Spec writes(String... names) {
            tables.addAll(List.of(names));
            return this;
        }

        /** The table, and {@code <table>_late} for the rows the watermark drops. */
        Spec writesWithLateRows(String table) {
            return writes(table, table + EventTables.LATE_SUFFIX);
        }

        Spec apis(Api first, Api... more) {
            apis = EnumSet.of(first, more);
            return this;
        }

        Spec refuses(Refusal... modes) {
            refusals.addAll(List.of(modes));
            return this;
        }

        Spec options(QueryOption first, QueryOption... more) {
            options = EnumSet.of(first, more);
            return this;
        }

        Spec availableNowOnly() {
            availableNowOnly = true;
            return this;
        }

        Spec outerJoinOf(QueryCatalog inner) {
            outerJoinOf = inner;
            return this;
        }

        Spec creates(Function<QueryRequest, Query> create) {
            factory = create;
            return this;
        }

        Spec layers(QueryCatalog... queries) {
            layers = List.of(queries);
            return this;
        }
    }
}
