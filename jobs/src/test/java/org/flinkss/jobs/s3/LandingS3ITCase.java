package org.flinkss.jobs.s3;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;
import org.apache.flink.test.junit5.MiniClusterExtension;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.EventLinesFormat;
import org.flinkss.course.event.EventSources;
import org.flinkss.course.event.ParsedEvent;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.course.tables.Customers;
import org.flinkss.jobs.Main;
import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.progress.ProgressTracker;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.source.ReadLimit;
import org.flinkss.runtime.source.SplitRecordReader;
import org.flinkss.runtime.source.files.FilePlanner;
import org.flinkss.runtime.source.files.FileSplit;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.testing.S3TestServer;
import org.flinkss.runtime.trigger.Trigger;
import org.flinkss.testutils.MiniClusters;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The landing folder on S3 (S3Proxy through {@code scripts/s3}, Flink's S3A plugin): {@code
 * land-events --base s3://...} writes what it writes locally, and the file source plans and reads
 * it as it plans and reads a local folder: the same batches, the same records, the same tables of a
 * real bronze run on a MiniCluster; a planned object that is gone fails the run naming it or, with
 * {@code --skip-missing-files}, is skipped and recorded, as locally.
 */
@Tag("ports")
class LandingS3ITCase {

    @RegisterExtension
    static final S3TestServer.PerClass S3 = new S3TestServer.PerClass("landing-s3-it");

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    /** Shared with the tasks, which run in this JVM: the object the seam deletes. */
    static final AtomicReference<String> DELETE_WHEN_EVENT_0_GOES_BY = new AtomicReference<>();

    @TempDir java.nio.file.Path dir;

    @AfterEach
    void disarm() {
        DELETE_WHEN_EVENT_0_GOES_BY.set(null);
    }

    private static int cli(String... args) {
        PrintStream out = System.out;
        try {
            System.setOut(new PrintStream(new ByteArrayOutputStream(), true));
            return Main.execute(args);
        } finally {
            System.setOut(out);
        }
    }

    private static void landWithCli(String base, int batch, long start, String api) {
        assertThat(
                        cli(
                                "land-events",
                                "--batch",
                                String.valueOf(batch),
                                "--start",
                                String.valueOf(start),
                                "--api",
                                api,
                                "--base",
                                base))
                .as("land-events --batch %d --base %s", batch, base)
                .isZero();
    }

    /** A batch the planner gave, by folder, and the records read from its files. */
    private record Planned(List<String> folders, List<Event> events) {}

    /** Plans one file per batch until none is left, reading each batch's files. */
    private static List<Planned> planAndRead(FilePlanner planner) throws Exception {
        List<Planned> batches = new ArrayList<>();
        for (long id = 0; ; id++) {
            List<FileSplit> batch =
                    planner.nextBatch(id, ReadLimit.none().withMaxFilesPerTrigger(1));
            if (batch.isEmpty()) {
                return batches;
            }
            List<String> folders = new ArrayList<>();
            List<Event> events = new ArrayList<>();
            for (FileSplit split : batch) {
                folders.add(split.key().substring(0, split.key().indexOf('/')));
                try (SplitRecordReader<ParsedEvent> reader = new EventLinesFormat().open(split)) {
                    for (ParsedEvent line = reader.next(); line != null; line = reader.next()) {
                        assertThat(line.isBad()).as("a bad line in %s", split.location()).isFalse();
                        events.add(line.event);
                    }
                }
            }
            planner.commit(batch);
            batches.add(new Planned(folders, events));
        }
    }

    private static FilePlanner planner(Path events, byte[] committed) throws Exception {
        FilePlanner planner = new FilePlanner(events, ".json");
        planner.restore(committed);
        planner.refreshTarget();
        return planner;
    }

    private static List<String> names(Path folder) throws Exception {
        List<String> names = new ArrayList<>();
        for (FileStatus child : Storage.list(folder)) {
            names.add(child.getPath().getName());
        }
        return names;
    }

    @Test
    void landEventsOnS3IsPlannedAndReadAsTheSameBatchesAndRecordsAsALocalFolder() throws Exception {
        Path s3Base = S3.server().freshPrefix("land");
        String localBase = dir.resolve("local").toString();
        String[] apis = {"datastream", "table", "datastream"};
        for (int batch = 1; batch <= 3; batch++) {
            landWithCli(s3Base.toString(), batch, (batch - 1) * 500L, apis[batch - 1]);
            landWithCli(localBase, batch, (batch - 1) * 500L, apis[batch - 1]);
        }
        Path s3Events = new Path(s3Base, "events");
        Path localEvents = Storage.location(Paths.get(localBase, "events").toFile());

        // Each batch folder holds one part file and _SUCCESS, nothing half-written or hidden.
        for (int batch = 1; batch <= 3; batch++) {
            assertThat(names(new Path(s3Events, "batch_" + batch)))
                    .hasSize(2)
                    .contains("_SUCCESS")
                    .anyMatch(n -> n.startsWith("part-00000-") && n.endsWith("-c000.json"));
        }
        assertThat(names(s3Events)).containsExactlyInAnyOrder("batch_1", "batch_2", "batch_3");

        FilePlanner onS3 = planner(s3Events, null);
        List<Planned> fromS3 = planAndRead(onS3);
        List<Planned> fromLocal = planAndRead(planner(localEvents, null));
        assertThat(fromS3).isEqualTo(fromLocal);
        assertThat(fromS3)
                .extracting(Planned::folders)
                .containsExactly(List.of("batch_1"), List.of("batch_2"), List.of("batch_3"));
        assertThat(fromS3.get(1).events()).isEqualTo(EventGenerator.events(500, 500));
        assertThat(fromS3.get(0).events().get(0).eventId).isEqualTo(0L);

        // A rewritten batch replaces the old part file, which is then new to the source, as
        // locally (Spark's overwrite gives the part file a new name).
        byte[] committed = onS3.committed();
        landWithCli(s3Base.toString(), 2, 5000, "datastream");
        assertThat(names(new Path(s3Events, "batch_2"))).hasSize(2);
        List<Planned> again = planAndRead(planner(s3Events, committed));
        assertThat(again).hasSize(1);
        assertThat(again.get(0).folders()).containsExactly("batch_2");
        assertThat(again.get(0).events()).isEqualTo(EventGenerator.events(5000, 500));
    }

    @Test
    void landCustomersOnAnS3BaseWritesItsTableToTheBasesWarehouseOnS3() throws Exception {
        Path base = S3.server().freshPrefix("customers");
        assertThat(cli("land-customers", "--base", base.toString(), "--countries", "US,DE"))
                .isZero();
        Warehouse warehouse = new Warehouse(new Path(base, "warehouse"));
        assertThat(warehouse.count(Customers.TABLE)).isEqualTo(Customers.COUNT);
        assertThat(warehouse.sortedValues(Customers.TABLE).get(1)).containsExactly(2, "DE");
    }

    @Test
    void landEventsToABucketThatDoesNotExistFailsInOneLineNamingTheBase() {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int code;
        try {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            code = cli("land-events", "--batch", "1", "--start", "0", "--base", "s3://no-bucket/x");
        } finally {
            System.setErr(err);
        }
        String printed = captured.toString(StandardCharsets.UTF_8);
        assertThat(code).as("exit code; stderr: %s", printed).isNotZero();
        assertThat(printed)
                .startsWith(
                        "error: the bucket 'no-bucket' does not exist at S3 "
                                + S3.server().endpoint()
                                + " for s3://no-bucket/x: create it")
                .contains("check s3.endpoint in ")
                .doesNotContain("\tat ");
    }

    /** One file per batch, fast restarts. */
    private static RunOptions.Builder options(java.nio.file.Path base) {
        return RunOptions.builder()
                .base(Storage.location(base.toFile()))
                .parallelism(2)
                .printProgress(false)
                .maxFilesPerTrigger(1)
                .checkpointInterval(Duration.ofMillis(200))
                .flinkOption("restart-strategy.type", "fixed-delay")
                .flinkOption("restart-strategy.fixed-delay.attempts", "1")
                .flinkOption("restart-strategy.fixed-delay.delay", "100 ms");
    }

    private static List<Long> numInputRows(RunOptions options) {
        List<Long> rows = new ArrayList<>();
        for (ObjectNode progress :
                ProgressTracker.history(options.checkpointOf(BronzeQuery.NAME))) {
            rows.add(progress.path("numInputRows").asLong());
        }
        return rows;
    }

    @Test
    void bronzeOverAnS3LandingFolderWritesTheTablesAndBatchesOfALocalRun() throws Exception {
        Path s3Events = new Path(S3.server().freshPrefix("bronze"), "events");
        RunOptions local = options(dir.resolve("local")).build();
        RunOptions onS3 = options(dir.resolve("s3")).build();
        for (int batch = 1; batch <= 3; batch++) {
            List<Event> events = EventGenerator.events((batch - 1) * 500L, 500 - batch);
            EventFiles.writeBatch(local.events(), batch, events);
            EventFiles.writeBatch(s3Events, batch, events);
        }
        // A bad line, quarantined naming its object and line, as a local file's.
        Storage.replaceText(
                new Path(s3Events, "batch_4/part-00000-bad-c000.json"),
                "{\"event_id\": 1\nnot json\n");
        Storage.replaceText(
                new Path(local.events(), "batch_4/part-00000-bad-c000.json"),
                "{\"event_id\": 1\nnot json\n");

        QueryRunner.run(new BronzeQuery(local.events()), local);
        QueryRunner.run(new BronzeQuery(s3Events, false), onS3);

        Warehouse localTables = new Warehouse(local.warehouse());
        Warehouse s3Tables = new Warehouse(onS3.warehouse());
        assertThat(s3Tables.sortedValues(BronzeQuery.TABLE))
                // The two bad lines are rows of nulls, as Spark's PERMISSIVE reader makes them,
                // and recorded in the quarantine table too (issue 37 point 3).
                .hasSize(499 + 498 + 497 + 2)
                .isEqualTo(localTables.sortedValues(BronzeQuery.TABLE));
        assertThat(numInputRows(onS3)).containsExactly(499L, 498L, 497L, 2L);
        assertThat(numInputRows(onS3)).isEqualTo(numInputRows(local));
        List<List<Object>> bad = s3Tables.sortedValues(BronzeQuery.QUARANTINE);
        assertThat(bad).hasSize(2);
        assertThat(bad.toString())
                .contains(new Path(s3Events, "batch_4/part-00000-bad-c000.json").toString());
        assertThat(localTables.sortedValues(BronzeQuery.QUARANTINE)).hasSize(2);

        // A rerun finds nothing new, without reading anything again.
        assertThat(QueryRunner.run(new BronzeQuery(s3Events, false), onS3).batches()).isZero();
    }

    /**
     * A real-time run lists a landing folder on S3 once a second, not every 10 ms ({@code
     * FilePlanner#realTimeLook}): a batch landed while it runs, once its first batch is committed,
     * still reaches the table before the run stops by itself, each event once.
     */
    @Test
    void aRealTimeRunOverAnS3LandingFolderReadsABatchLandedWhileItRuns() throws Exception {
        Path s3Events = new Path(S3.server().freshPrefix("real-time"), "events");
        EventFiles.writeBatch(s3Events, 1, EventGenerator.events(0, 500));
        List<Long> landedWhileRunning = new ArrayList<>();
        RunOptions onS3 =
                options(dir.resolve("real-time"))
                        .trigger(Trigger.realTime(Duration.ofSeconds(1)))
                        .runFor(Duration.ofSeconds(45))
                        .listener(
                                progress -> {
                                    if (landedWhileRunning.isEmpty()
                                            && progress.path("numInputRows").asLong() > 0) {
                                        landedWhileRunning.add(progress.path("batchId").asLong());
                                        try {
                                            EventFiles.writeBatch(
                                                    s3Events, 2, EventGenerator.events(500, 500));
                                        } catch (Exception e) {
                                            throw new IllegalStateException(e);
                                        }
                                    }
                                })
                        .build();

        QueryRunner.run(new BronzeQuery(s3Events, false), onS3);

        assertThat(landedWhileRunning).as("batch 2 landed after a committed batch").hasSize(1);
        Warehouse tables = new Warehouse(onS3.warehouse());
        // Each of the 1,000 events once: batch 1's 0-499 and batch 2's 500-999.
        assertThat(tables.sortedValues(BronzeQuery.TABLE))
                .extracting(row -> ((Number) row.get(0)).longValue())
                .containsExactlyInAnyOrderElementsOf(LongStream.range(0, 1000).boxed().toList());
        assertThat(numInputRows(onS3).stream().mapToLong(Long::longValue).sum()).isEqualTo(1000);
    }

    /** Between bronze's source and its tables: deletes an object when event 0 goes by. */
    static final class Seam implements MapFunction<ParsedEvent, ParsedEvent> {
        private static final long serialVersionUID = 1L;

        @Override
        public ParsedEvent map(ParsedEvent line) throws Exception {
            if (line.event != null && Long.valueOf(0).equals(line.event.eventId)) {
                String object = DELETE_WHEN_EVENT_0_GOES_BY.getAndSet(null);
                if (object != null) {
                    assertThat(Storage.delete(new Path(object))).isTrue();
                }
            }
            return line;
        }
    }

    private static Query bronzeWithSeam(Path events) {
        return new Query() {
            @Override
            public String name() {
                return BronzeQuery.NAME;
            }

            @Override
            public void build(QueryContext context) {
                BronzeQuery.write(
                        context,
                        EventSources.jsonFiles(context, "events", events, null, false)
                                .map(new Seam())
                                .returns(ParsedEvent.class)
                                .name("seam")
                                .uid("seam"));
            }
        };
    }

    /** Three batches of 500 on S3; returns the part file of batch_3, the run's batch 2. */
    private static Path land(Path events) throws Exception {
        for (int batch = 1; batch <= 3; batch++) {
            EventFiles.writeBatch(events, batch, EventGenerator.events((batch - 1) * 500L, 500));
        }
        for (FileStatus file : Storage.list(new Path(events, "batch_3"))) {
            if (file.getPath().getName().endsWith(".json")) {
                return file.getPath();
            }
        }
        throw new AssertionError("no part file in batch_3");
    }

    @Test
    void aPlannedObjectThatIsGoneFailsTheRunNamingItOrIsSkippedAndRecorded() throws Exception {
        Path events = new Path(S3.server().freshPrefix("gone"), "events");
        Path gone = land(events);
        byte[] content = Storage.readBytes(gone);

        RunOptions failing = options(dir.resolve("fail")).build();
        DELETE_WHEN_EVENT_0_GOES_BY.set(gone.toString());
        assertThatThrownBy(() -> QueryRunner.run(bronzeWithSeam(events), failing))
                .isInstanceOf(QueryException.class)
                .hasMessageStartingWith(
                        "query 'bronze' failed: IOException: source 'events': file "
                                + gone
                                + " was planned in batch 2 but is gone before it was read")
                .hasMessageContaining("run it again with --skip-missing-files")
                .hasMessageContaining("caused by FileNotFoundException");
        assertThat(DELETE_WHEN_EVENT_0_GOES_BY.get()).as("the seam deleted the object").isNull();
        Warehouse failed = new Warehouse(failing.warehouse());
        assertThat(failed.count(BronzeQuery.TABLE)).isEqualTo(1000);

        // Put back, the rerun reads it: every row once.
        Storage.replace(gone, content);
        QueryRunner.run(new BronzeQuery(events, false), failing);
        assertThat(failed.count(BronzeQuery.TABLE)).isEqualTo(1500);

        // With --skip-missing-files: skipped, recorded once with its URI, the rest read once.
        RunOptions skipping = options(dir.resolve("skip")).skipMissingFiles(true).build();
        DELETE_WHEN_EVENT_0_GOES_BY.set(gone.toString());
        QueryRunner.run(bronzeWithSeam(events), skipping);
        Warehouse skipped = new Warehouse(skipping.warehouse());
        assertThat(skipped.count(BronzeQuery.TABLE)).isEqualTo(1000);
        List<List<Object>> record = skipped.sortedValues(BronzeQuery.SKIPPED_FILES);
        assertThat(record).hasSize(1);
        assertThat(record.get(0).get(0)).isEqualTo(gone.toString());
        assertThat(record.get(0).get(1)).isEqualTo(2L);
        assertThat(new String(content, StandardCharsets.UTF_8)).isNotEmpty();
    }
}
