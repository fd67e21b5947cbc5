package org.flinkss.jobs.delta;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.queries.Api;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.course.queries.QueryCatalog;
import org.flinkss.course.testing.Expected;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.SkippedCommit;
import org.flinkss.runtime.query.OutputMode;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.flinkss.course.testing.Expected.MINUTE;
import static org.flinkss.jobs.queries.WindowITCase.DELAY;
import static org.flinkss.jobs.queries.WindowITCase.LATE;

/**
 * Issue 12 for a stateful query: win5's savepoints and checkpoints deleted after two runs (the
 * issue's {@code events_5min} went from 93 to 186 rows). The next run starts with no state, replays
 * the batches the offset log recorded, which rebuilds the window state, and its tables skip each of
 * them; the window rows stay as they were, the late event stays dropped once, and a later run gives
 * what an uninterrupted stream gives.
 */
class DeltaStatefulReplayITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    private static final String TABLE = "events_5min";
    private static final String LATE_TABLE = "events_5min_late";
    private static final long NO_WATERMARK = Long.MAX_VALUE;

    @TempDir Path base;

    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();

    private RunOptions options(OutputMode mode) {
        return RunOptions.builder()
                .base(Storage.location(base.toFile()))
                .parallelism(2)
                .printProgress(false)
                .outputMode(mode)
                .out(new PrintStream(printed, true, StandardCharsets.UTF_8))
                .build();
    }

    @Test
    void appendModeWithoutRestorePointsSkipsTheReplayedBatchesInTheWindowAndLateTables() {
        RunOptions options = options(OutputMode.APPEND);
        Warehouse warehouse = new Warehouse(options.warehouse());
        List<Event> all = twoRuns(options);
        long watermark = Expected.maxEventTime(all) - DELAY;
        List<List<Object>> windows =
                Expected.windows(all, 5 * MINUTE, 5 * MINUTE, false, watermark);
        assertThat(warehouse.sortedValues(TABLE)).containsExactlyElementsOf(windows);
        assertThat(warehouse.count(LATE_TABLE)).isEqualTo(1);

        QueryRunner.Result replay = deleteRestorePointsAndRerun(options);

        assertThat(replay.skippedCommits)
                .extracting(SkippedCommit::table)
                .contains(TABLE, LATE_TABLE);
        assertThat(warehouse.sortedValues(TABLE)).containsExactlyElementsOf(windows);
        assertThat(warehouse.count(LATE_TABLE)).as("the late event, dropped once").isEqualTo(1);

        // The replay rebuilt the window state and the watermark: a later batch closes the next
        // windows as an uninterrupted stream does.
        List<Event> more = nextRun(options, all);
        assertThat(warehouse.sortedValues(TABLE))
                .containsExactlyElementsOf(
                        Expected.windows(
                                more,
                                5 * MINUTE,
                                5 * MINUTE,
                                false,
                                Expected.maxEventTime(more) - DELAY));
        assertThat(warehouse.count(LATE_TABLE)).isEqualTo(1);
    }

    @Test
    void completeModeWithoutRestorePointsSkipsTheReplayedOverwrites() {
        RunOptions options = options(OutputMode.COMPLETE);
        Warehouse warehouse = new Warehouse(options.warehouse());
        List<Event> all = twoRuns(options);
        all.add(LATE); // complete mode keeps all state: nothing is late
        List<List<Object>> windows =
                Expected.windows(all, 5 * MINUTE, 5 * MINUTE, false, NO_WATERMARK);
        assertThat(warehouse.sortedValues(TABLE)).containsExactlyElementsOf(windows);
        long version = warehouse.delta(TABLE).version();

        QueryRunner.Result replay = deleteRestorePointsAndRerun(options);

        assertThat(replay.skippedCommits).extracting(SkippedCommit::table).containsOnly(TABLE);
        assertThat(warehouse.delta(TABLE).version()).as("no new overwrite").isEqualTo(version);
        assertThat(warehouse.sortedValues(TABLE)).containsExactlyElementsOf(windows);

        // The rebuilt state counts every event once in the next overwrite.
        List<Event> more = nextRun(options, all);
        assertThat(warehouse.sortedValues(TABLE))
                .containsExactlyElementsOf(
                        Expected.windows(more, 5 * MINUTE, 5 * MINUTE, false, NO_WATERMARK));
    }

    /**
     * Steps 1 and 2: ids 0..999, then the late event and ids 1000..1499, each through bronze and
     * win5. Returns the events on time, ids 0..1499.
     */
    private List<Event> twoRuns(RunOptions options) {
        EventFiles.writeBatch(options.events(), 1, EventGenerator.events(0, 500));
        EventFiles.writeBatch(options.events(), 2, EventGenerator.events(500, 500));
        run(options);
        EventFiles.writeBatch(options.events(), 3, List.of(LATE));
        EventFiles.writeBatch(options.events(), 4, EventGenerator.events(1000, 500));
        run(options);
        return new ArrayList<>(EventGenerator.events(0, 1500));
    }

    /** Step 3: win5's restore points deleted by hand; the offset log and the tables stay. */
    private QueryRunner.Result deleteRestorePointsAndRerun(RunOptions options) {
        CheckpointLayout layout = options.checkpointOf(QueryCatalog.WIN5.queryName());
        try {
            DeltaReplayITCase.deleteTree(
                    Storage.localFile(layout.savepoints(), "a test file").toPath());
            DeltaReplayITCase.deleteTree(
                    Storage.localFile(layout.checkpoints(), "a test file").toPath());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        printed.reset();
        QueryRunner.Result replay =
                QueryRunner.run(QueryCatalog.WIN5.create(options, Api.DATASTREAM), options);
        assertThat(replay.skippedCommits).isNotEmpty();
        String out = printed.toString(StandardCharsets.UTF_8);
        for (SkippedCommit s : replay.skippedCommits) {
            assertThat(out).contains("batch " + s.batchId() + " already committed to ");
        }
        return replay;
    }

    /** Step 4: ids 1500..1999 through bronze and win5; returns every event so far. */
    private List<Event> nextRun(RunOptions options, List<Event> before) {
        EventFiles.writeBatch(options.events(), 5, EventGenerator.events(1500, 500));
        QueryRunner.Result next = run(options);
        assertThat(next.skippedCommits).isEmpty();
        List<Event> all = new ArrayList<>(before);
        all.addAll(EventGenerator.events(1500, 500));
        return all;
    }

    private QueryRunner.Result run(RunOptions options) {
        RunOptions bronze =
                RunOptions.builder()
                        .base(options.base())
                        .parallelism(2)
                        .printProgress(false)
                        .build();
        QueryRunner.run(new BronzeQuery(bronze.events()), bronze);
        return QueryRunner.run(QueryCatalog.WIN5.create(options, Api.DATASTREAM), options);
    }
}
