package org.flinkss.runtime.checkpoint;

import org.apache.flink.table.types.logical.RowType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What makes a query the same query for its checkpoint (Spark's rule): its sources, its sinks and
 * its stateful operators, and the columns of the tables it writes (a table with other columns needs
 * a new checkpoint and a rebuilt table). Filters, rate limits and the trigger may change between
 * runs.
 *
 * <p>Record tables (a source's {@code <table>_skipped_files}) are kept beside the identity, not in
 * it: they are the source's bookkeeping, written whether or not anything is skipped, and a
 * checkpoint made before they existed is the same query's. They are listed so that {@code reset}
 * empties them too.
 */
public final class QueryIdentity {

    private final String name;
    private final List<String> sources;
    private final List<String> sinks;
    private final List<String> stateful;
    private final List<String> records;

    /** Table -> its columns, as {@code ["event_id BIGINT", ...]}; null if not recorded. */
    @Nullable private final Map<String, List<String>> tables;

    /**
     * The tables whose columns a run may grow (Auto Loader's {@code addNewColumns}): a run that
     * writes one with the recorded columns followed by others is the same query. Not recorded: a
     * property of the run, not of the checkpoint.
     */
    private final Set<String> growing;

    /**
     * The Spark configuration the checkpoint keeps for its life, as Spark's offset log keeps it in
     * {@code OffsetSeqMetadata.conf}: here {@code spark.sql.streaming.multipleWatermarkPolicy} of a
     * query with several watermark nodes ({@link ConfRecord}). Not compared by {@link #sameQuery}.
     */
    private final Map<String, String> conf;

    public QueryIdentity(
            String name, List<String> sources, List<String> sinks, List<String> stateful) {
        this(name, sources, sinks, stateful, List.of(), null);
    }

    /**
     * @param records the record tables, which {@link #sameQuery} does not compare
     * @param tables the columns of each table the query writes, by table name, as {@link #columns};
     *     null if unknown (a checkpoint's identity recorded before they were part of it)
     */
    public QueryIdentity(
            String name,
            List<String> sources,
            List<String> sinks,
            List<String> stateful,
            List<String> records,
            @Nullable Map<String, List<String>> tables) {
        this.name = name;
        this.sources = List.copyOf(sources);
        this.sinks = List.copyOf(sinks);
        this.stateful = List.copyOf(stateful);
        this.records = List.copyOf(records);
        this.tables =
                tables == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(tables));
        this.growing = Set.of();
        this.conf = Map.of();
    }

    private QueryIdentity(QueryIdentity identity, Set<String> growing, Map<String, String> conf) {
        this.name = identity.name;
        this.sources = identity.sources;
        this.sinks = identity.sinks;
        this.stateful = identity.stateful;
        this.records = identity.records;
        this.tables = identity.tables;
        this.growing = Set.copyOf(growing);
        this.conf = Collections.unmodifiableMap(new LinkedHashMap<>(conf));
    }

    /** The Spark configuration the checkpoint keeps ({@link #withConf}); empty if none. */
    public Map<String, String> conf() {
        return conf;
    }

    /** This identity with the Spark configuration {@code conf} to keep in the checkpoint. */
    public QueryIdentity withConf(Map<String, String> conf) {
        return new QueryIdentity(this, growing, conf);
    }

    /** The tables whose columns this run may grow ({@link #growing}). */
    Set<String> growingTables() {
        return growing;
    }

    /** This identity, of a run whose tables {@code tables} may have grown since the recorded. */
    public QueryIdentity growing(Set<String> tables) {
        return new QueryIdentity(this, tables, conf);
    }

    /**
     * A table's columns as the identity records them: {@code ["event_id BIGINT", "user_id INT",
     * ...]}.
     */
    public static List<String> columns(RowType rowType) {
        return rowType.getFields().stream()
                .map(f -> f.getName() + " " + f.getType().asSummaryString())
                .toList();
    }

    public String name() {
        return name;
    }

    /** Its sources, as Spark describes them ({@code FileStreamSource[${base}/events/*.json]}). */
    public List<String> sources() {
        return sources;
    }

    /** The tables it writes (record tables apart). */
    public List<String> sinks() {
        return sinks;
    }

    /** Its stateful operators, as each describes itself (API, window, watermark, output mode). */
    public List<String> stateful() {
        return stateful;
    }

    /** The columns of each table it writes, by table; empty if its identity recorded none. */
    public Map<String, List<String>> tableColumns() {
        return tables == null ? Map.of() : tables;
    }

    /** The record tables, which {@link #sameQuery} does not compare. */
    public List<String> records() {
        return records;
    }

    /** This identity with other record tables. */
    QueryIdentity withRecords(List<String> newRecords) {
        return new QueryIdentity(name, sources, sinks, stateful, newRecords, tables).withConf(conf);
    }

    /**
     * Same name, sources, sinks and stateful operators; see {@link #columnChange} for the columns.
     */
    public boolean sameQuery(QueryIdentity other) {
        return name.equals(other.name)
                && sources.equals(other.sources)
                && sinks.equals(other.sinks)
                && stateful.equals(other.stateful);
    }

    /**
     * How a run of the same query ({@link #sameQuery}) changes the columns of a table this identity
     * recorded, or null if it changes none (or either side recorded no columns).
     */
    @Nullable
    String columnChange(QueryIdentity run) {
        if (tables == null || run.tables == null) {
            return null;
        }
        for (Map.Entry<String, List<String>> table : tables.entrySet()) {
            List<String> before = table.getValue();
            List<String> now = run.tables.get(table.getKey());
            if (now != null && !now.equals(before)) {
                if (grows(table.getKey(), before, run)) {
                    continue;
                }
                List<String> added = now.stream().filter(c -> !before.contains(c)).toList();
                List<String> dropped = before.stream().filter(c -> !now.contains(c)).toList();
                return "writes table '"
                        + table.getKey()
                        + "' with columns ("
                        + String.join(", ", before)
                        + "), but this run writes it with ("
                        + String.join(", ", now)
                        + ")"
                        + (added.isEmpty() ? "" : "; added: " + String.join(", ", added))
                        + (dropped.isEmpty() ? "" : "; dropped: " + String.join(", ", dropped));
            }
        }
        return null;
    }

    /** Whether {@code run} writes a table that may grow with more columns than recorded here. */
    boolean grownBy(QueryIdentity run) {
        if (tables == null || run.tables == null) {
            return false;
        }
        return tables.entrySet().stream()
                .anyMatch(
                        t ->
                                !t.getValue().equals(run.tables.get(t.getKey()))
                                        && grows(t.getKey(), t.getValue(), run));
    }

    private static boolean grows(String table, List<String> before, QueryIdentity run) {
        List<String> now = run.tables.get(table);
        return run.growing.contains(table)
                && now != null
                && now.size() > before.size()
                && now.subList(0, before.size()).equals(before);
    }

    /** This identity with the tables' columns of {@code run}, whose tables grew. */
    QueryIdentity withTablesOf(QueryIdentity run) {
        return new QueryIdentity(name, sources, sinks, stateful, records, run.tables)
                .withConf(conf);
    }

    public String describe() {
        return "'"
                + name
                + "' (sources "
                + sources
                + ", sinks "
                + sinks
                + (stateful.isEmpty() ? "" : ", stateful " + stateful)
                + ")";
    }

    ObjectNode toJson() {
        ObjectNode node = JsonFiles.JSON.createObjectNode();
        node.put("name", name);
        sources.forEach(node.putArray("sources")::add);
        sinks.forEach(node.putArray("sinks")::add);
        stateful.forEach(node.putArray("stateful")::add);
        if (!records.isEmpty()) {
            records.forEach(node.putArray("records")::add);
        }
        if (tables != null) {
            ObjectNode recorded = node.putObject("tables");
            tables.forEach((table, columns) -> columns.forEach(recorded.putArray(table)::add));
        }
        if (!conf.isEmpty()) {
            conf.forEach(node.putObject(CONF_FIELD)::put);
        }
        return node;
    }

    /**
     * The query id kept in a checkpoint's {@code metadata.json}, on any storage ({@link
     * CheckpointMetadata}).
     *
     * @throws IllegalStateException if the file holds none
     * @throws java.io.UncheckedIOException if it cannot be read
     */
    public static String idIn(CheckpointLayout layout) {
        return CheckpointMetadata.queryIdIn(layout);
    }

    static QueryIdentity fromJson(JsonNode node) {
        Map<String, List<String>> tables = null;
        if (node.has("tables")) {
            Map<String, List<String>> recorded = new LinkedHashMap<>();
            node.path("tables")
                    .fields()
                    .forEachRemaining(t -> recorded.put(t.getKey(), texts(t.getValue())));
            tables = recorded;
        }
        Map<String, String> conf = new LinkedHashMap<>();
        node.path(CONF_FIELD)
                .fields()
                .forEachRemaining(c -> conf.put(c.getKey(), c.getValue().asText()));
        return new QueryIdentity(
                        node.path("name").asText(),
                        texts(node.path("sources")),
                        texts(node.path("sinks")),
                        texts(node.path("stateful")),
                        texts(node.path("records")),
                        tables)
                .withConf(conf);
    }

    /**
     * The field of {@code metadata.json} that holds {@link #conf}, named as Spark's offset log's.
     */
    static final String CONF_FIELD = "conf";

    private static List<String> texts(JsonNode array) {
        List<String> list = new ArrayList<>();
        array.forEach(n -> list.add(n.asText()));
        return list;
    }
}
