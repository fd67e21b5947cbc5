package org.flinkss.course.queries;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.test.junit5.MiniClusterExtension;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.EventSources;
import org.flinkss.course.event.ParsedEvent;
import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.progress.ProgressTracker;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Topic 11.14: a landing file that the run planned is gone when a reader opens it. Without {@code
 * --skip-missing-files} the run fails, naming the file, its batch and both ways out, and keeps what
 * it committed; with it the file is skipped and recorded once, and the rest is read once.
 */
class MissingFilesITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    /** Shared with the tasks, which run in this JVM. */
    static final AtomicReference<Path> DELETE_WHEN_EVENT_0_GOES_BY = new AtomicReference<>();

    static final AtomicBoolean FAIL_AT_FIRST_SKIP_RECORD = new AtomicBoolean();

    @TempDir Path base;

    @AfterEach
    void disarm() {
        DELETE_WHEN_EVENT_0_GOES_BY.set(null);
        FAIL_AT_FIRST_SKIP_RECORD.set(false);
    }

    /**
     * Between bronze's source and its tables: deletes a file when event 0 goes by, and can fail
     * once on the first skip record. Event 0 is in batch 0; with one file per batch, batch 1 is
     * planned only after a checkpoint that holds all of batch 0 has completed, which needs this
     * record processed first. So the file (listed when the run started, in a later batch) is gone
     * after the run planned it and before a reader opens it, every time.
     */
    static final class Seam implements MapFunction<ParsedEvent, ParsedEvent> {
        private static final long serialVersionUID = 1L;

        @Override
        public ParsedEvent map(ParsedEvent line) throws Exception {
            if (line.event != null && Long.valueOf(0).equals(line.event.eventId)) {
                Path file = DELETE_WHEN_EVENT_0_GOES_BY.getAndSet(null);
                if (file != null) {
                    Files.delete(file);
                }
            }
            if (line.isSkippedFile() && FAIL_AT_FIRST_SKIP_RECORD.getAndSet(false)) {
                throw new IllegalStateException(
                        "injected failure right after a skip, before its batch is committed");
            }
            return line;
        }
    }

    /** Bronze itself (its name, source and tables), with the {@link Seam} after its source. */
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
                        EventSources.jsonFiles(
                                        context,
                                        "events",
                                        Storage.location(events.toFile()),
                                        null,
                                        false)
                                .map(new Seam())
                                .returns(ParsedEvent.class)
                                .name("seam")
                                .uid("seam"));
            }
        };
    }

    /**
     * One file per batch, fast restarts; each task failure costs two attempts (its own, then the
     * source's global one).
     */
    private static RunOptions.Builder options(Path base, int attempts) {
        return RunOptions.builder()
                .base(Storage.location(base.toFile()))
                .parallelism(2)
                .printProgress(false)
                .maxFilesPerTrigger(1)
                .checkpointInterval(Duration.ofMillis(200))
                .flinkOption("restart-strategy.type", "exponential-delay")
                .flinkOption("restart-strategy.exponential-delay.initial-backoff", "100 ms")
                .flinkOption("restart-strategy.exponential-delay.max-backoff", "200 ms")
                .flinkOption(
                        "restart-strategy.exponential-delay.attempts-before-reset-backoff",
                        String.valueOf(attempts));
    }

    /** Four batches of 500 events (ids 0..1999); returns the file of batch_3, the run's batch 2. */
    private static Path land(RunOptions options) throws Exception {
        for (int batch = 1; batch <= 4; batch++) {
            EventFiles.writeBatch(
                    options.events(), batch, EventGenerator.events((batch - 1) * 500L, 500));
        }
        try (Stream<Path> files =
                Files.list(
                        Storage.localFile(options.events(), "a test file")
                                .toPath()
                                .resolve("batch_3"))) {
            return files.filter(f -> f.getFileName().toString().endsWith(".json"))
                    .findFirst()
                    .orElseThrow();
        }
    }

    private static List<Long> ids(long from, long to) {
        return LongStream.range(from, to).boxed().collect(Collectors.toList());
    }

    @Test
    void
            aPlannedFileThatIsGoneFailsTheRunNamingItAndAfterItIsPutBackTheRerunEqualsAnUninterruptedRun()
                    throws Exception {
        // Step 1: what an uninterrupted run writes, from the same four files.
        RunOptions reference = options(base.resolve("reference"), 2).build();
        land(reference);
        QueryRunner.run(new BronzeQuery(reference.events()), reference);
        List<List<Object>> expected =
                new Warehouse(reference.warehouse()).sortedValues(BronzeQuery.TABLE);
        assertThat(expected).extracting(row -> row.get(0)).containsExactlyElementsOf(ids(0, 2000));

        // Step 2: the same files; batch_3's file is deleted after the run planned it.
        RunOptions options = options(base.resolve("run"), 2).build();
        Path gone = land(options);
        byte[] content = Files.readAllBytes(gone);
        DELETE_WHEN_EVENT_0_GOES_BY.set(gone);

        // Step 3: the run fails after its restarts; the reader's own exception comes first and
        // names the file, its batch and both ways out.
        assertThatThrownBy(
                        () ->
                                QueryRunner.run(
                                        bronzeWithSeam(
                                                Storage.localFile(options.events(), "a test file")
                                                        .toPath()),
                                        options))
                .isInstanceOf(QueryException.class)
                .hasMessageStartingWith(
                        "query 'bronze' failed: IOException: source 'events': file "
                                + gone
                                + " was planned in batch 2 but is gone before it was read")
                .hasMessageContaining("put it back and run the query again")
                .hasMessageContaining("run it again with --skip-missing-files")
                .hasMessageContaining("caused by NoSuchFileException: " + gone)
                .hasMessageContaining("keeps what was committed");
        assertThat(DELETE_WHEN_EVENT_0_GOES_BY.get()).as("the seam deleted the file").isNull();

        // Step 4: what was committed stays committed: batches 0 and 1.
        Warehouse warehouse = new Warehouse(options.warehouse());
        assertThat(warehouse.sortedValues(BronzeQuery.TABLE))
                .extracting(row -> row.get(0))
                .containsExactlyElementsOf(ids(0, 1000));

        // Step 5: put the file back and run bronze again: exactly the uninterrupted run's rows.
        Files.write(gone, content);
        QueryRunner.run(new BronzeQuery(options.events()), options);

        assertThat(warehouse.sortedValues(BronzeQuery.TABLE)).containsExactlyElementsOf(expected);
        assertThat(warehouse.count(BronzeQuery.SKIPPED_FILES)).isZero();
        assertThat(ProgressTracker.history(options.checkpointOf(BronzeQuery.NAME)))
                .extracting(p -> p.path("batchId").asLong())
                .containsExactly(0L, 1L, 2L, 3L);
    }

    @Test
    void withSkipMissingFilesAGoneFileIsSkippedAndRecordedOnceAcrossARestartAndTheRestIsReadOnce()
            throws Exception {
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        RunOptions options =
                options(base, 8)
                        .skipMissingFiles(true)
                        .out(new PrintStream(console, true, StandardCharsets.UTF_8))
                        .build();
        Path gone = land(options);
        DELETE_WHEN_EVENT_0_GOES_BY.set(gone);
        // A failure right after the skip record: the batch is read again from the last
        // checkpoint, the file is skipped again, and must still be recorded once.
        FAIL_AT_FIRST_SKIP_RECORD.set(true);

        QueryRunner.Result run =
                QueryRunner.run(
                        bronzeWithSeam(Storage.localFile(options.events(), "a test file").toPath()),
                        options);

        assertThat(DELETE_WHEN_EVENT_0_GOES_BY.get()).as("the seam deleted the file").isNull();
        assertThat(FAIL_AT_FIRST_SKIP_RECORD.get())
                .as("the failure after the skip was thrown")
                .isFalse();

        // Every other row, exactly once; nothing is taken for a bad line.
        Warehouse warehouse = new Warehouse(options.warehouse());
        List<Long> others =
                Stream.concat(ids(0, 1000).stream(), ids(1500, 2000).stream())
                        .collect(Collectors.toList());
        assertThat(warehouse.sortedValues(BronzeQuery.TABLE))
                .extracting(row -> row.get(0))
                .containsExactlyElementsOf(others);
        assertThat(warehouse.count(BronzeQuery.QUARANTINE)).isZero();

        // The skip, once in the table: which file, its batch, why, and the run.
        List<List<Object>> skipped = warehouse.sortedValues(BronzeQuery.SKIPPED_FILES);
        assertThat(skipped).hasSize(1);
        assertThat(skipped.get(0).get(0)).isEqualTo(gone.toString());
        assertThat(skipped.get(0).get(1)).isEqualTo(2L);
        assertThat(skipped.get(0).get(2))
                .isEqualTo("gone before it was read (--skip-missing-files)");
        assertThat(skipped.get(0).get(3)).isNotNull();
        assertThat(skipped.get(0).get(4)).isEqualTo(run.runId);

        // Once in the progress of its batch, which read nothing; once on the console.
        List<ObjectNode> history = ProgressTracker.history(options.checkpointOf(BronzeQuery.NAME));
        assertThat(history)
                .extracting(p -> p.path("batchId").asLong())
                .containsExactly(0L, 1L, 2L, 3L);
        JsonNode batch2 = history.get(2);
        assertThat(batch2.path("numInputRows").asLong()).isZero();
        assertThat(batch2.path("sources").path(0).path("numSkippedFiles").asLong()).isEqualTo(1);
        assertThat(batch2.path("sources").path(0).path("skippedFiles"))
                .extracting(JsonNode::asText)
                .containsExactly(gone.toString());
        assertThat(batch2.path("sink").path("others").path(BronzeQuery.SKIPPED_FILES).asLong())
                .isEqualTo(1);
        assertThat(history)
                .filteredOn(p -> p != batch2)
                .allMatch(p -> p.path("sources").path(0).path("skippedFiles").isMissingNode());
        String printed = console.toString(StandardCharsets.UTF_8);
        assertThat(printed.split("warning: bronze: skipped " + gone + ", planned in batch 2", -1))
                .hasSize(2);

        // A rerun finds nothing new: a skipped file is not read later.
        QueryRunner.Result rerun = QueryRunner.run(new BronzeQuery(options.events()), options);
        assertThat(rerun.batches()).isZero();
        assertThat(warehouse.count(BronzeQuery.SKIPPED_FILES)).isEqualTo(1);
    }
}
