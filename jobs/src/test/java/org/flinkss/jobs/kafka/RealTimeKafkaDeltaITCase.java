package org.flinkss.jobs.kafka;

import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.queries.KafkaBronzeQuery;
import org.flinkss.course.testing.KafkaTestBroker;
import org.flinkss.jobs.Main;
import org.flinkss.jobs.TestDiary;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.QueryIdentity;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.source.kafka.KafkaTables;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.table.delta.HistoryEntry;
import org.flinkss.runtime.testing.ChildJvm;
import org.flinkss.testutils.MiniClusters;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 36: {@code --trigger real-time} from a Kafka topic to a Delta table, {@code run
 * kafka-bronze} and a {@code sql --file} with a {@code 'connector' = 'delta'} sink. Records are
 * written as they arrive and committed at each checkpoint, one table version with the query's
 * {@code txn}; a run killed with {@code kill -9} while records flow, and run again, leaves each
 * record in the table once.
 */
class RealTimeKafkaDeltaITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @RegisterExtension static final KafkaTestBroker.PerClass KAFKA = new KafkaTestBroker.PerClass();

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long SEED = Long.getLong("flinkss.killSeed", 36361L);

    /** Only catches a hang: a loaded 2-core machine takes a minute or more to start a run. */
    private static final Duration HANG = Duration.ofMinutes(4);

    /** The documented example: events -> the Delta table events_rt. */
    static final Path REAL_TIME_DELTA_SQL =
            SqlKafkaITCase.KAFKA_WIN5_SQL.resolveSibling("real-time-delta.sql");

    @TempDir Path dir;

    @RegisterExtension final TestDiary diary = new TestDiary();

    private static KafkaTestBroker kafka() {
        return KAFKA.broker();
    }

    @Test
    void kafkaBronzeKilledWhileRecordsFlowHoldsEachRecordOnce() throws Exception {
        kafkaBronze();
    }

    private void kafkaBronze() throws Exception {
        kafka().createTopic("rt-bronze", 3);
        Path base = Files.createDirectories(dir.resolve("bronze"));
        Warehouse warehouse = new Warehouse(Storage.location(base.resolve("warehouse").toFile()));
        String[] run = {
            "run",
            KafkaBronzeQuery.NAME,
            "--base",
            base.toString(),
            "--bootstrap-servers",
            kafka().bootstrapServers(),
            "--subscribe",
            "rt-bronze",
            "--starting-offsets",
            "earliest",
            "--trigger",
            "real-time=1s",
            "--parallelism",
            "2",
            "--quiet"
        };
        ChildJvm.Launcher launcher =
                ChildJvm.of(Main.class)
                        .workDir(dir.resolve("bronze-child"))
                        .tmpDir(dir.resolve("bronze-tmp"));

        // Step 1: 500 events before the run; the run, a checkpoint (a commit) every second.
        kafka().produceEvents("rt-bronze", 0, 500);
        AtomicInteger produced = new AtomicInteger(500);
        AtomicBoolean producing = new AtomicBoolean(true);
        Thread producer =
                new Thread(
                        () -> {
                            while (producing.get()) {
                                kafka().produceEvents("rt-bronze", produced.get(), 50);
                                produced.addAndGet(50);
                                pause(100);
                            }
                        },
                        "producer");
        try {
            try (ChildJvm child = launcher.output(log("bronze-run-1")).start(run)) {
                awaitRows(child, warehouse, KafkaBronzeQuery.TABLE, 500);
                diary.note("run 1: the 500 events produced before it are in the table");

                // Step 2: a producer writes 50 events every 100 ms; the table grows while the
                // run goes on; kill -9 a seeded 0-1.5 s after it has.
                producer.start();
                long seen = warehouse.count(KafkaBronzeQuery.TABLE);
                assertThat(
                                child.await(
                                        "rows produced during the run in the table",
                                        () -> {
                                            pause(200);
                                            return warehouse.count(KafkaBronzeQuery.TABLE) > seen;
                                        },
                                        HANG))
                        .isTrue();
                int extra = new Random(SEED).nextInt(1500);
                Thread.sleep(extra);
                assertThat(child.kill9()).isEqualTo(ChildJvm.KILLED_EXIT_CODE);
                diary.note(
                        "run 1: kill -9 "
                                + extra
                                + " ms after the table grew: "
                                + warehouse.count(KafkaBronzeQuery.TABLE)
                                + " rows, "
                                + produced.get()
                                + " produced");
            }
            producing.set(false);
            producer.join();
            int events = produced.get();
            diary.note("producer done: " + events + " events");

            // Step 3: the rerun reads on from the last checkpoint, for 60 s, and stops by itself.
            String[] rerun = withRunFor(run, "60s");
            try (ChildJvm child = launcher.output(log("bronze-run-2")).start(rerun)) {
                awaitRows(child, warehouse, KafkaBronzeQuery.TABLE, events);
                assertThat(child.waitFor(HANG)).as(child.outputText()).isZero();
            }

            // Step 4: each event once, and one table version per batch with the query's txn.
            assertThat(bronzeEventIds(warehouse))
                    .containsExactlyElementsOf(
                            LongStream.range(0, events).boxed().collect(Collectors.toList()));
            assertTxnPerVersion(
                    warehouse, KafkaBronzeQuery.TABLE, checkpoint(base, "kafka-bronze"));
        } finally {
            producing.set(false);
        }
    }

    @Test
    void theSqlExampleWritesADeltaTableAsRecordsArrive() throws Exception {
        sqlToDelta();
    }

    private void sqlToDelta() throws Exception {
        kafka().createTopic("rt-sql-in", 2);
        Path base = Files.createDirectories(dir.resolve("sql"));
        Warehouse warehouse = new Warehouse(Storage.location(base.resolve("warehouse").toFile()));
        String sql = Files.readString(REAL_TIME_DELTA_SQL, StandardCharsets.UTF_8);
        for (String part : List.of("'127.0.0.1:9092'", "'topic' = 'events',")) {
            assertThat(sql).as("the example's " + part).contains(part);
        }
        Path file = dir.resolve("real-time-delta.sql");
        Files.writeString(
                file,
                sql.replace("'127.0.0.1:9092'", "'" + kafka().bootstrapServers() + "'")
                        .replace("'topic' = 'events',", "'topic' = 'rt-sql-in',"),
                StandardCharsets.UTF_8);

        // Step 1: the example as docs/real-time.md runs it, real-time=500ms for 40 s.
        kafka().produceEvents("rt-sql-in", 0, 300);
        try (ChildJvm child =
                ChildJvm.of(Main.class)
                        .workDir(dir.resolve("sql-child"))
                        .tmpDir(dir.resolve("sql-tmp"))
                        .output(log("sql-run"))
                        .start(
                                "sql",
                                "--file",
                                file.toString(),
                                "--base",
                                base.toString(),
                                "--trigger",
                                "real-time=500ms",
                                "--run-for",
                                "40s",
                                "--parallelism",
                                "2")) {
            awaitRows(child, warehouse, "events_rt", 300);
            diary.note("the 300 events produced before the run are in events_rt");

            // Step 2: 200 more while it runs: in the table before the run ends.
            kafka().produceEvents("rt-sql-in", 300, 200);
            awaitRows(child, warehouse, "events_rt", 500);
            diary.note("the 200 produced during the run are in events_rt");
            assertThat(child.waitFor(HANG)).as(child.outputText()).isZero();
        }

        // Step 3: each event once, one version per batch with the query's txn.
        List<Long> ids = new ArrayList<>();
        for (RowData row : warehouse.rows("events_rt")) {
            ids.add(row.getLong(0));
        }
        ids.sort(Long::compare);
        assertThat(ids)
                .containsExactlyElementsOf(
                        LongStream.range(0, 500).boxed().collect(Collectors.toList()));
        assertTxnPerVersion(warehouse, "events_rt", checkpoint(base, "real-time-delta"));
    }

    @Test
    void aCompleteModeTableIsReplacedByTheWholeResultAtEachCommit() throws Exception {
        completeMode();
    }

    private void completeMode() throws Exception {
        kafka().createTopic("rt-totals-in", 2);
        Path base = Files.createDirectories(dir.resolve("totals"));
        Warehouse warehouse = new Warehouse(Storage.location(base.resolve("warehouse").toFile()));
        Path file = dir.resolve("rt-totals.sql");
        Files.writeString(
                file,
                "CREATE TEMPORARY TABLE events (event_id BIGINT, event_type STRING)\n"
                        + "  WITH ('connector' = 'kafka', 'topic' = 'rt-totals-in',"
                        + " 'properties.bootstrap.servers' = '"
                        + kafka().bootstrapServers()
                        + "', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json');\n"
                        + "CREATE TEMPORARY TABLE totals (event_type STRING, events BIGINT,\n"
                        + "  PRIMARY KEY (event_type) NOT ENFORCED)\n"
                        + "  WITH ('connector' = 'delta', 'table' = 'rt_totals',"
                        + " 'sink.mode' = 'complete');\n"
                        + "INSERT INTO totals SELECT event_type, COUNT(*) FROM events"
                        + " GROUP BY event_type;\n",
                StandardCharsets.UTF_8);

        // Step 1: 300 events, then the query in real-time mode for 40 s: the table holds the
        // counts of the 300; 200 more while it runs: the counts of all 500, the table replaced.
        kafka().produceEvents("rt-totals-in", 0, 300);
        try (ChildJvm child =
                ChildJvm.of(Main.class)
                        .workDir(dir.resolve("totals-child"))
                        .tmpDir(dir.resolve("totals-tmp"))
                        .output(log("totals-run"))
                        .start(
                                "sql",
                                "--file",
                                file.toString(),
                                "--base",
                                base.toString(),
                                "--trigger",
                                "real-time=500ms",
                                "--run-for",
                                "40s",
                                "--parallelism",
                                "2")) {
            awaitTable(child, warehouse, "rt_totals", countsByType(300));
            diary.note("rt_totals holds the counts of the first 300 events");
            kafka().produceEvents("rt-totals-in", 300, 200);
            awaitTable(child, warehouse, "rt_totals", countsByType(500));
            diary.note("rt_totals holds the counts of all 500 events");
            assertThat(child.waitFor(HANG)).as(child.outputText()).isZero();
        }
        assertThat(warehouse.sortedValues("rt_totals"))
                .containsExactlyElementsOf(countsByType(500));
        assertTxnPerVersion(warehouse, "rt_totals", checkpoint(base, "rt-totals"));
    }

    /** {@code event_type, events} of the course's events 0..n-1, sorted. */
    private static List<List<Object>> countsByType(int n) {
        return EventGenerator.events(0, n).stream()
                .collect(
                        Collectors.groupingBy(
                                e -> e.eventType, TreeMap::new, Collectors.counting()))
                .entrySet()
                .stream()
                .map(e -> List.<Object>of(e.getKey(), e.getValue()))
                .toList();
    }

    /** Waits until the table's rows are {@code expected} while the child runs. */
    private static void awaitTable(
            ChildJvm child, Warehouse warehouse, String table, List<List<Object>> expected)
            throws InterruptedException {
        assertThat(
                        child.await(
                                table + " = " + expected,
                                () -> {
                                    if (warehouse.exists(table)
                                            && warehouse.sortedValues(table).equals(expected)) {
                                        return true;
                                    }
                                    pause(200);
                                    return false;
                                },
                                HANG))
                .as("the run is still running; its output:%n%s", child.outputText())
                .isTrue();
    }

    /** Every version of the table written by the query carries its txn, batch ids growing. */
    private void assertTxnPerVersion(Warehouse warehouse, String table, CheckpointLayout checkpoint)
            throws IOException {
        String queryId = QueryIdentity.idIn(checkpoint);
        List<HistoryEntry> versions =
                warehouse.delta(table).history(Integer.MAX_VALUE).stream()
                        .sorted((a, b) -> Long.compare(a.version(), b.version()))
                        .filter(v -> v.rowsAdded() > 0)
                        .collect(Collectors.toList());
        List<Long> batches = versions.stream().map(HistoryEntry::batchId).toList();
        diary.note(
                table + ": versions with rows " + versions.size() + ", their batch ids " + batches);
        assertThat(versions).allSatisfy(v -> assertThat(v.appId()).isEqualTo(queryId));
        assertThat(batches).isSorted().doesNotHaveDuplicates();
    }

    private static String[] withRunFor(String[] run, String duration) {
        List<String> args = new ArrayList<>(List.of(run));
        args.addAll(List.of("--run-for", duration));
        return args.toArray(String[]::new);
    }

    private static CheckpointLayout checkpoint(Path base, String query) {
        return RunOptions.builder()
                .base(Storage.location(base.toFile()))
                .build()
                .checkpointOf(query);
    }

    private static List<Long> bronzeEventIds(Warehouse warehouse) {
        List<Long> ids = new ArrayList<>();
        for (RowData row : warehouse.rows(KafkaBronzeQuery.TABLE)) {
            try {
                ids.add(JSON.readTree(row.getBinary(KafkaTables.VALUE)).path("event_id").asLong());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        Map<Long, Long> counts =
                ids.stream()
                        .collect(
                                Collectors.groupingBy(
                                        id -> id, TreeMap::new, Collectors.counting()));
        Map<Long, Long> twice = new TreeMap<>(counts);
        twice.values().removeIf(n -> n == 1);
        assertThat(twice).as("events written more than once (id -> count)").isEmpty();
        return new ArrayList<>(counts.keySet());
    }

    /** Waits until the table holds {@code rows} rows while the child runs; fails on more. */
    private static void awaitRows(ChildJvm child, Warehouse warehouse, String table, long rows)
            throws InterruptedException {
        assertThat(
                        child.await(
                                rows + " rows in " + table,
                                () -> {
                                    long count =
                                            warehouse.exists(table) ? warehouse.count(table) : 0;
                                    assertThat(count)
                                            .as("rows in " + table)
                                            .isLessThanOrEqualTo(rows);
                                    if (count < rows) {
                                        pause(200); // a snapshot read costs: not every 20 ms
                                    }
                                    return count == rows;
                                },
                                HANG))
                .as("the run is still running; its output:%n%s", child.outputText())
                .isTrue();
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Path log(String name) {
        Path output = dir.resolve("logs").resolve(name + ".log");
        diary.output(output);
        return output;
    }
}
