package org.flinkss.sparkdiff.oracle;

import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.streaming.Trigger;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.apache.spark.sql.functions.avg;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.round;
import static org.apache.spark.sql.functions.session_window;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.window;

/**
 * The course's queries (module 11) on Spark itself, as the course writes them: the oracle of the
 * spark-diff tests. It runs in its own JVM (Spark and Flink clash on one class path) and is fed on
 * standard input, one command a line; every answer is one line on standard output starting with
 * {@code @oracle} (Spark's own output goes to standard error):
 *
 * <ul>
 *   <li>{@code open <dir>}: a fresh chain of queries in {@code <dir>}: landing folder {@code
 *       <dir>/events}, Delta tables {@code <dir>/tables/<table>}, checkpoints {@code
 *       <dir>/_cp/<query>};
 *   <li>{@code round <n>}: every query once with {@code Trigger.AvailableNow} (bronze first, gold
 *       after silver), then every table exported to {@code <dir>/out/round-<n>/<table>.csv} (a
 *       header, then the rows sorted as text) and each query's progress of the round to {@code
 *       <dir>/out/round-<n>/progress/<query>.jsonl};
 *   <li>{@code smoke <dir>}: writes a Delta table of 3 rows, reads it back as a batch and as a
 *       stream, and answers the counts;
 *   <li>{@code read-delta <table dir> <csv file>}: reads any Delta table as a batch ({@code
 *       spark.read.format("delta")}, its current snapshot) into {@code <csv file>} (a header, then
 *       the rows sorted as text, values as the project's {@code table export --csv} writes them);
 *   <li>{@code upsert <bronze dir> <after version> <to version> <table dir>}, {@code read-feed
 *       <table dir> <csv file>}: the course's 11.13 upsert into a table with Delta's change data
 *       feed, and a table's feed as {@code readChangeFeed} reads it ({@link ChangeFeedOracle});
 *   <li>{@code upsert-stream <bronze dir> <events_latest dir> <checkpoint dir>}: the same upsert as
 *       the course runs it, an availableNow stream with {@code foreachBatch} ({@link SparkUpsert});
 *   <li>{@code read-history <table dir> <file>}: a table's {@code DESCRIBE HISTORY}, a line a
 *       version ({@link HistoryOracle});
 *   <li>{@code quit}.
 * </ul>
 *
 * <p>Answers: {@code @oracle ok ...} or {@code @oracle error <message>} (the stack trace goes to
 * standard error). Timestamps are written at Spark's precision: {@code .SSS} when the value has
 * whole milliseconds, else {@code .SSSSSS}.
 */
public final class SparkOracle {

    static final String SCHEMA =
            "event_id LONG, user_id INT, event_type STRING, event_ts TIMESTAMP, amount DOUBLE";
    static final String WATERMARK = "10 minutes";

    /** The queries in the order a round runs them, with the table each writes. */
    static final Map<String, String> TABLES = new LinkedHashMap<>();

    static {
        TABLES.put("bronze", "events_bronze");
        TABLES.put("win5", "events_5min");
        TABLES.put("sliding", "events_sliding");
        TABLES.put("sessions", "events_sessions");
        TABLES.put("dedup", "events_dedup");
        TABLES.put("view-then-buy", "view_then_buy");
        TABLES.put("view-then-buy-outer", "view_then_buy_left");
        TABLES.put("view-then-buy-max", "view_then_buy_max");
        TABLES.put("view-then-buy-outer-max", "view_then_buy_left_max");
        TABLES.put("silver", "events_silver");
        TABLES.put("gold", "events_by_type");
        TABLES.put("user-hop", "user_hop_amounts");
    }

    private static final DateTimeFormatter MILLIS =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter MICROS =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

    /**
     * The tables' format: parquet (Spark's file sink and, on its output, the file source; the
     * default, about a third cheaper per round) or delta (the course's Delta tables: {@code
     * -Doracle.format=delta}). Both hand each query the same rows batch by batch.
     */
    static final String FORMAT = System.getProperty("oracle.format", "parquet");

    private final SparkSession spark;
    private Path base;
    private SparkOracle underMax;

    SparkOracle(SparkSession spark) {
        this.spark = spark;
    }

    public static void main(String[] args) throws IOException {
        PrintStream answers =
                new PrintStream(
                        new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        // Anything Spark or its libraries print goes to standard error: standard output is the
        // protocol.
        System.setOut(System.err);
        String warehouse =
                args.length > 0 ? args[0] : Files.createTempDirectory("spark-oracle").toString();
        SparkSession spark =
                LocalSparkSessions.withDelta("spark-oracle")
                        .config("spark.sql.datetime.java8API.enabled", "true")
                        // Few state partitions: the results do not depend on them, the time does.
                        .config(
                                "spark.sql.shuffle.partitions",
                                System.getProperty("oracle.partitions", "1"))
                        // Delta's own test settings for small local tables: fewer partitions, no
                        // statistics.
                        .config("spark.databricks.delta.snapshotPartitions", "1")
                        .config("spark.databricks.delta.stats.collect", "false")
                        .config(
                                "spark.sql.warehouse.dir",
                                Paths.get(warehouse, "spark-warehouse").toString())
                        .getOrCreate();
        spark.sparkContext().setLogLevel("WARN");
        SparkOracle oracle = new SparkOracle(spark);
        answers.println("@oracle ready spark " + spark.version());
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            line = line.trim();
            if (line.isEmpty()) {
                continue;
            }
            if (line.equals("quit")) {
                break;
            }
            try {
                answers.println("@oracle ok " + oracle.handle(line));
            } catch (Throwable e) {
                e.printStackTrace(System.err);
                answers.println("@oracle error " + oneLine(e));
            }
        }
        spark.stop();
        answers.println("@oracle bye");
    }

    private static String oneLine(Throwable e) {
        StringBuilder sb = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (sb.length() > 0) {
                sb.append(" <- ");
            }
            sb.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage());
        }
        return sb.toString().replace('\n', ' ').replace('\r', ' ');
    }

    String handle(String line) throws Exception {
        String[] words = line.split(" ", 2);
        switch (words[0]) {
            case "open":
                base = Paths.get(words[1]);
                Files.createDirectories(base.resolve("events"));
                return "open " + base;
            case "round":
                if (base == null) {
                    throw new IllegalStateException("'round' before 'open <dir>'");
                }
                int round = Integer.parseInt(words[1]);
                long start = System.nanoTime();
                runRound(round);
                return "round "
                        + round
                        + " "
                        + (System.nanoTime() - start) / 1_000_000
                        + " ms, oracle cpu "
                        + cpuSeconds()
                        + " s";
            case "smoke":
                return smoke(Paths.get(words[1]));
            case "upsert-stream":
                {
                    // upsert-stream <bronze dir> <events_latest dir> <checkpoint dir>: topic
                    // 11.13 as the course runs it, a stream with foreachBatch.
                    String[] paths = words[1].split(" ");
                    return SparkUpsert.run(
                            spark, Paths.get(paths[0]), Paths.get(paths[1]), Paths.get(paths[2]));
                }
            case "read-delta":
                {
                    String[] paths = words[1].split(" ");
                    return readDelta(Paths.get(paths[0]), Paths.get(paths[1]));
                }
            case "read-history":
                {
                    String[] paths = words[1].split(" ");
                    return new HistoryOracle(spark).read(Paths.get(paths[0]), Paths.get(paths[1]));
                }
            case "upsert":
                {
                    String[] paths = words[1].split(" ");
                    return new ChangeFeedOracle(spark)
                            .upsert(
                                    Paths.get(paths[0]),
                                    Long.parseLong(paths[1]),
                                    Long.parseLong(paths[2]),
                                    Paths.get(paths[3]));
                }
            case "read-feed":
                {
                    String[] paths = words[1].split(" ");
                    Path file = Paths.get(paths[1]);
                    Files.createDirectories(file.getParent());
                    writeCsv(new ChangeFeedOracle(spark).feed(Paths.get(paths[0])), file);
                    return "read-feed "
                            + paths[0]
                            + " "
                            + (Files.readAllLines(file).size() - 1)
                            + " rows";
                }
            case "feed-stream":
            case "win5-update":
                return ChangeFeedStreams.handle(spark, words[0], words[1]);
            default:
                throw new IllegalArgumentException(
                        "unknown command '"
                                + line
                                + "': open <dir>, round <n>, smoke <dir>, read-delta <table dir>"
                                + " <csv file>, upsert <bronze dir> <after version> <to version>"
                                + " <table dir>, read-feed <table dir> <csv file>, upsert-stream"
                                + " <bronze dir> <latest dir> <checkpoint dir>, feed-stream <table"
                                + " dir> <csv file>, win5-update <bronze dir> <table dir>"
                                + " <checkpoint dir>, read-history <table dir> <file>, quit");
        }
    }

    /** CPU time of this JVM so far: the oracle's cost, apart from the project's. */
    static String cpuSeconds() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        long nanos =
                os instanceof com.sun.management.OperatingSystemMXBean
                        ? ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime()
                        : -1;
        return String.format(Locale.ROOT, "%.1f", nanos / 1e9);
    }

    // ---------------------------------------------------------------- the course's queries

    private String table(String name) {
        return base.resolve("tables").resolve(name).toString();
    }

    private boolean exists(String table) {
        return Files.isDirectory(
                Paths.get(table(table), FORMAT.equals("delta") ? "_delta_log" : "_spark_metadata"));
    }

    /** {@code spark.readStream.table(name)}: a Delta table as a stream. */
    private Dataset<Row> stream(String table) {
        if (FORMAT.equals("delta")) {
            return spark.readStream().format("delta").load(table(table));
        }
        return spark.readStream()
                .schema(spark.read().parquet(table(table)).schema())
                .parquet(table(table));
    }

    /** Module 11.03: the landing folder with the explicit schema. */
    Dataset<Row> bronze() {
        return bronze(spark, base.resolve("events"));
    }

    /** Module 11.03 on any landing folder (also {@link SparkBronzeRun}'s query). */
    static Dataset<Row> bronze(SparkSession spark, Path landing) {
        return spark.readStream()
                .schema(SCHEMA)
                .option("recursiveFileLookup", "true")
                .option("pathGlobFilter", "*.json")
                .json(landing.toString());
    }

    /** Module 11.07 and 11.10: windows by {@code key} with a 10-minute watermark. */
    static Dataset<Row> windows(Dataset<Row> events, Column window, String key) {
        return events.withWatermark("event_ts", WATERMARK)
                .groupBy(window, col(key))
                .agg(count("*").alias("events"), round(sum("amount"), 2).alias("amount"));
    }

    /** Module 11.08: {@code dropDuplicatesWithinWatermark(["event_id"])}. */
    static Dataset<Row> dedup(Dataset<Row> events) {
        return events.withWatermark("event_ts", WATERMARK)
                .dropDuplicatesWithinWatermark(new String[] {"event_id"});
    }

    /**
     * Module 11.09: views then a buy of the same user within 5 minutes, each side filtered then
     * watermarked.
     */
    Dataset<Row> viewThenBuy(String joinType) {
        Dataset<Row> views =
                stream("events_bronze")
                        .filter("event_type = 'view'")
                        .withWatermark("event_ts", WATERMARK)
                        .alias("v");
        Dataset<Row> buys =
                stream("events_bronze")
                        .filter("event_type = 'buy'")
                        .withWatermark("event_ts", WATERMARK)
                        .alias("b");
        return views.join(
                        buys,
                        expr(
                                "v.user_id = b.user_id AND b.event_ts BETWEEN v.event_ts AND"
                                        + " v.event_ts + INTERVAL 5 MINUTES"),
                        joinType)
                .select(
                        col("v.user_id"),
                        col("v.event_id").alias("view_id"),
                        col("b.event_id").alias("buy_id"));
    }

    /** Module 11.15's silver: valid amounts, then the watermark, then dedup. */
    Dataset<Row> silver() {
        return dedup(stream("events_bronze").filter("amount IS NOT NULL AND amount >= 0"));
    }

    /** Module 11.15's gold: 30-minute windows by type over silver. */
    Dataset<Row> gold() {
        return windows(
                stream("events_silver"), window(col("event_ts"), "30 minutes"), "event_type");
    }

    /**
     * A query the course does not have, the Spark side of the project's SQL file {@code
     * examples/sql/user-hop.sql} (issue 31): rows that are not views, 15-minute windows sliding
     * every 5 minutes by user, with the count, the smallest, largest and mean amount; a 10-minute
     * watermark on the source, before the filter, as the file's WATERMARK.
     */
    Dataset<Row> userHop() {
        return stream("events_bronze")
                .withWatermark("event_ts", WATERMARK)
                .filter("event_type <> 'view'")
                .groupBy(window(col("event_ts"), "15 minutes", "5 minutes"), col("user_id"))
                .agg(
                        count("*").alias("events"),
                        min("amount").alias("min_amount"),
                        max("amount").alias("max_amount"),
                        round(avg("amount"), 2).alias("avg_amount"));
    }

    /** The query's plan, or null when the table it reads does not exist yet (nothing to read). */
    private Dataset<Row> query(String name) {
        switch (name) {
            case "bronze":
                return bronze();
            case "gold":
                return exists("events_silver") ? gold() : null;
            default:
                break;
        }
        if (!exists("events_bronze")) {
            return null;
        }
        switch (name) {
            case "win5":
                return windows(
                        stream("events_bronze"),
                        window(col("event_ts"), "5 minutes"),
                        "event_type");
            case "sliding":
                return windows(
                        stream("events_bronze"),
                        window(col("event_ts"), "10 minutes", "5 minutes"),
                        "event_type");
            case "sessions":
                return windows(
                        stream("events_bronze"),
                        session_window(col("event_ts"), "2 minutes"),
                        "user_id");
            case "dedup":
                return dedup(stream("events_bronze"));
            case "view-then-buy":
                return viewThenBuy("inner");
            case "view-then-buy-outer":
                return viewThenBuy("leftouter");
            case "silver":
                return silver();
            case "user-hop":
                return userHop();
            default:
                throw new IllegalArgumentException("unknown query " + name);
        }
    }

    /**
     * The stages of a round: bronze, then the queries that read bronze, then gold (reads silver).
     * The queries of a stage run at the same time (each its own streaming query, checkpoint and
     * table, as the course's notebook cells would run as separate jobs); {@code
     * -Doracle.concurrent=false} runs them one by one.
     */
    static final List<List<String>> STAGES =
            List.of(
                    List.of("bronze"),
                    List.of(
                            "win5",
                            "sliding",
                            "sessions",
                            "dedup",
                            "view-then-buy",
                            "view-then-buy-outer",
                            "view-then-buy-max",
                            "view-then-buy-outer-max",
                            "silver",
                            "user-hop"),
                    List.of("gold"));

    static final boolean CONCURRENT =
            Boolean.parseBoolean(System.getProperty("oracle.concurrent", "true"));

    /** One availableNow run of every query, then every table exported. */
    void runRound(int round) throws Exception {
        Path out = base.resolve("out").resolve("round-" + round);
        Files.createDirectories(out.resolve("progress"));
        for (List<String> stage : STAGES) {
            Map<String, StreamingQuery> running = new LinkedHashMap<>();
            for (String name : stage) {
                Dataset<Row> plan =
                        MaxPolicyQueries.isMax(name)
                                ? underMax().query(MaxPolicyQueries.underMin(name))
                                : query(name);
                if (plan != null) {
                    StreamingQuery q = start(plan, name);
                    running.put(name, q);
                    if (!CONCURRENT) {
                        q.awaitTermination();
                    }
                } else {
                    running.put(name, null);
                }
            }
            for (Map.Entry<String, StreamingQuery> q : running.entrySet()) {
                List<String> progress = new ArrayList<>();
                if (q.getValue() != null) {
                    q.getValue().awaitTermination();
                    for (StreamingQueryProgress p : q.getValue().recentProgress()) {
                        progress.add(p.json().replace('\n', ' '));
                    }
                }
                Files.write(
                        out.resolve("progress").resolve(q.getKey() + ".jsonl"),
                        progress,
                        StandardCharsets.UTF_8);
            }
        }
        for (String table : TABLES.values()) {
            export(table, out.resolve(table + ".csv"));
        }
    }

    /** The oracle on the same base in a session whose policy is max ({@link MaxPolicyQueries}). */
    private SparkOracle underMax() {
        if (underMax == null) {
            underMax = new SparkOracle(MaxPolicyQueries.session(spark));
        }
        underMax.base = base;
        return underMax;
    }

    /** {@code plan} started in its own session, availableNow, into its table. */
    private StreamingQuery start(Dataset<Row> plan, String name) throws Exception {
        return plan.writeStream()
                .format(FORMAT)
                .outputMode("append")
                .queryName(name.replace('-', '_'))
                .option("checkpointLocation", base.resolve("_cp").resolve(name).toString())
                .trigger(Trigger.AvailableNow())
                .start(table(TABLES.get(name)));
    }

    // ---------------------------------------------------------------- export

    /**
     * The table's rows with the project's columns: window structs flattened to window_start,
     * window_end.
     */
    private Dataset<Row> flat(String table) {
        Dataset<Row> rows = spark.read().format(FORMAT).load(table(table));
        switch (table) {
            case "events_5min":
            case "events_sliding":
            case "events_by_type":
                return rows.select(
                        col("window.start").alias("window_start"),
                        col("window.end").alias("window_end"),
                        col("event_type"),
                        col("events"),
                        col("amount"));
            case "events_sessions":
                return rows.select(
                        col("session_window.start").alias("window_start"),
                        col("session_window.end").alias("window_end"),
                        col("user_id"),
                        col("events"),
                        col("amount"));
            case "user_hop_amounts":
                return rows.select(
                        col("window.start").alias("window_start"),
                        col("window.end").alias("window_end"),
                        col("user_id"),
                        col("events"),
                        col("min_amount"),
                        col("max_amount"),
                        col("avg_amount"));
            case "view_then_buy":
            case "view_then_buy_left":
            case "view_then_buy_max":
            case "view_then_buy_left_max":
                return rows.select("user_id", "view_id", "buy_id");
            default:
                return rows.select("event_id", "user_id", "event_type", "event_ts", "amount");
        }
    }

    /**
     * The project's own Delta table at {@code dir}, read by Delta Spark ({@code
     * spark.read.format("delta")}: its current snapshot), written as the project's {@code table
     * export --csv} writes it: an independent reader of every table the project writes.
     */
    private String readDelta(Path dir, Path file) throws IOException {
        Files.createDirectories(file.getParent());
        writeCsv(spark.read().format("delta").load(dir.toString()), file);
        return "read-delta " + dir + " " + (Files.readAllLines(file).size() - 1) + " rows";
    }

    private void export(String table, Path file) throws IOException {
        if (exists(table)) {
            writeCsv(flat(table), file);
        } else {
            Files.write(file, List.of(""), StandardCharsets.UTF_8);
        }
    }

    static void writeCsv(Dataset<Row> rows, Path file) throws IOException {
        List<String> lines = new ArrayList<>();
        for (Row row : rows.collectAsList()) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.size(); i++) {
                if (i > 0) {
                    line.append(',');
                }
                line.append(csv(row.get(i)));
            }
            lines.add(line.toString());
        }
        Collections.sort(lines);
        lines.add(0, String.join(",", rows.columns()));
        Files.write(file, lines, StandardCharsets.UTF_8);
    }

    /**
     * A value as the project's {@code table export --csv} writes it, timestamps at Spark's
     * precision, binary values (Kafka's {@code key} and {@code value}) in lower-case hex.
     */
    static String csv(Object v) {
        if (v == null) {
            return "";
        }
        if (v instanceof byte[]) {
            return HexFormat.of().formatHex((byte[]) v);
        }
        if (v instanceof Instant) {
            Instant t = (Instant) v;
            return (t.getNano() % 1_000_000 == 0 ? MILLIS : MICROS).format(t);
        }
        String s = v.toString();
        if (s.contains(",") || s.contains("\"") || s.contains("\n") || s.contains("\r")) {
            return '"' + s.replace("\"", "\"\"") + '"';
        }
        return s;
    }

    // ---------------------------------------------------------------- delta smoke test

    private String smoke(Path dir) throws Exception {
        String path = dir.resolve("smoke").toString();
        spark.range(3).toDF("id").write().format("delta").mode("overwrite").save(path);
        long batch = spark.read().format("delta").load(path).count();
        Path cp = dir.resolve("smoke_cp");
        StreamingQuery q =
                spark.readStream()
                        .format("delta")
                        .load(path)
                        .writeStream()
                        .format("delta")
                        .option("checkpointLocation", cp.toString())
                        .trigger(Trigger.AvailableNow())
                        .start(dir.resolve("smoke_copy").toString());
        q.awaitTermination();
        long streamed =
                spark.read().format("delta").load(dir.resolve("smoke_copy").toString()).count();
        String deltaVersion =
                io.delta.tables.DeltaTable.class.getPackage().getImplementationVersion();
        return "smoke batch="
                + batch
                + " stream="
                + streamed
                + " delta="
                + deltaVersion
                + " spark="
                + spark.version();
    }
}
