package org.flinkss.runtime.operators;

import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.assigners.SlidingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.WindowAssigner;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.VarCharType;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.progress.Fragment;
import org.flinkss.runtime.progress.Fragments;
import org.flinkss.runtime.progress.RunScope;
import org.flinkss.runtime.storage.Storage;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.flinkss.runtime.operators.Harness.atMicros;
import static org.flinkss.runtime.operators.Harness.clock;
import static org.flinkss.runtime.operators.Harness.push;
import static org.flinkss.runtime.operators.Harness.watermark;

/**
 * {@link WindowAggregate} in Flink's keyed operator harness: rows and Spark's watermarks pushed one
 * by one, and after each watermark what it wrote, the windows it holds (its keyed state) and its
 * timers.
 */
class WindowAggregateTest {

    private static final Duration FIVE_MINUTES = Duration.ofMinutes(5);

    /** The output rows: key, window start, window end, count, sum. */
    private static final RowDataSerializer ROWS =
            new RowDataSerializer(
                    new VarCharType(VarCharType.MAX_LENGTH),
                    new BigIntType(),
                    new BigIntType(),
                    new BigIntType(),
                    new BigIntType());

    private static final WindowAggregate.Emitter<String, Tally> EMITTER =
            (start, end, key, acc) ->
                    GenericRowData.of(StringData.fromString(key), start, end, acc.rows, acc.sum);

    @TempDir Path base;

    private final List<KeyedOneInputStreamOperatorTestHarness<String, Reading, RowData>> open =
            new ArrayList<>();

    private RunScope scope() {
        return new RunScope(
                CheckpointLayout.of(Storage.location(base.toFile()), "windows"), "run-1");
    }

    @AfterEach
    void close() throws Exception {
        for (var harness : open) {
            harness.close();
        }
    }

    @Test
    void tumblingWindowsInFinalModeAreWrittenOnceWhenTheWatermarkReachesTheirEnd()
            throws Exception {
        var h = harness(TumblingEventTimeWindows.of(FIVE_MINUTES), WindowEmission.FINAL);

        push(h, "a", "00:01", 1);
        push(h, "a", "00:03", 2);
        push(h, "a", "00:06", 4);
        push(h, "b", "00:02", 8);
        assertThat(windows(h))
                .containsExactly("a [00:00-00:05) 2", "a [00:05-00:10) 1", "b [00:00-00:05) 1");
        assertThat(h.numEventTimeTimers()).as("one per key, at its earliest window").isEqualTo(2);
        assertThat(drain(h)).isEmpty();

        watermark(h, "00:04:59.999");
        assertThat(drain(h)).isEmpty();

        // Spark: an append-mode window is written when window_end <= watermark.
        watermark(h, "00:05");
        assertThat(drain(h))
                .containsExactlyInAnyOrder(
                        "+I a [00:00-00:05) rows=2 sum=3", "+I b [00:00-00:05) rows=1 sum=8");
        assertThat(windows(h)).containsExactly("a [00:05-00:10) 1");
        assertThat(h.numEventTimeTimers()).isEqualTo(1);

        watermark(h, "00:06");
        assertThat(drain(h)).as("written once").isEmpty();
    }

    @Test
    void onePassOverAKeysWindowsWritesEveryWindowTheWatermarkEndedOnce() throws Exception {
        var h = tumblingOnRocksDb(null);

        push(h, "a", "00:06", 1);
        push(h, "a", "00:12", 2);
        assertThat(h.numEventTimeTimers()).as("a later window needs no timer").isEqualTo(1);
        // An earlier window after a later one: its own timer, and a's first one left behind.
        push(h, "a", "00:01", 4);
        push(h, "b", "00:03", 8);
        assertThat(h.numEventTimeTimers()).isEqualTo(3);

        watermark(h, "00:05");
        assertThat(drain(h))
                .containsExactlyInAnyOrder(
                        "+I a [00:00-00:05) rows=1 sum=4", "+I b [00:00-00:05) rows=1 sum=8");
        assertThat(windows(h)).containsExactly("a [00:05-00:10) 1", "a [00:10-00:15) 1");
        assertThat(h.numEventTimeTimers()).as("a's at 00:10, set before").isEqualTo(1);

        // One watermark past both of a's windows: its one timer writes both.
        watermark(h, "00:15");
        assertThat(drain(h))
                .containsExactly(
                        "+I a [00:05-00:10) rows=1 sum=1", "+I a [00:10-00:15) rows=1 sum=2");
        assertThat(windows(h)).isEmpty();
        assertThat(h.numEventTimeTimers()).isZero();

        watermark(h, "01:00");
        assertThat(drain(h)).as("written once").isEmpty();
    }

    @Test
    void aKeysTimersLeftBehindFindNothingAndEveryWindowIsWrittenOnce() throws Exception {
        // A timer per window, as a checkpoint of an older version holds them (and as rows that
        // come in reverse order leave them): all fire at one watermark; one pass writes the
        // windows, the other timers find that the key was gone through at this watermark.
        var h = tumblingOnRocksDb(null);
        push(h, "a", "00:21", 1);
        push(h, "a", "00:16", 2);
        push(h, "a", "00:11", 4);
        push(h, "a", "00:06", 8);
        assertThat(h.numEventTimeTimers()).isEqualTo(4);

        watermark(h, "00:20");
        assertThat(drain(h))
                .containsExactly(
                        "+I a [00:05-00:10) rows=1 sum=8",
                        "+I a [00:10-00:15) rows=1 sum=4",
                        "+I a [00:15-00:20) rows=1 sum=2");
        assertThat(windows(h)).containsExactly("a [00:20-00:25) 1");
        assertThat(h.numEventTimeTimers()).isEqualTo(1);
    }

    @Test
    void afterARestoreEachKeyKeepsOneTimerAndItsWindowsAreWrittenOnce() throws Exception {
        var before = tumblingOnRocksDb(null);
        push(before, "a", "00:01", 1);
        push(before, "a", "00:06", 2);
        push(before, "b", "00:07", 4);
        OperatorSubtaskState snapshot = before.snapshot(1, 0);

        var after = tumblingOnRocksDb(snapshot);
        assertThat(after.numEventTimeTimers()).isEqualTo(2);
        // a's restored timer (00:05) covers a later window: no new timer.
        push(after, "a", "00:12", 8);
        assertThat(after.numEventTimeTimers()).isEqualTo(2);

        watermark(after, "00:15");
        assertThat(drain(after))
                .containsExactlyInAnyOrder(
                        "+I a [00:00-00:05) rows=1 sum=1",
                        "+I a [00:05-00:10) rows=1 sum=2",
                        "+I a [00:10-00:15) rows=1 sum=8",
                        "+I b [00:05-00:10) rows=1 sum=4");
        assertThat(windows(after)).isEmpty();
        assertThat(after.numEventTimeTimers()).isZero();
    }

    @Test
    void slidingWindowsHoldARowInEveryWindowThatCoversIt() throws Exception {
        var h =
                harness(
                        SlidingEventTimeWindows.of(Duration.ofMinutes(10), FIVE_MINUTES),
                        WindowEmission.FINAL);

        push(h, "a", "01:07", 1);
        assertThat(windows(h)).containsExactly("a [01:00-01:10) 1", "a [01:05-01:15) 1");
        assertThat(h.numEventTimeTimers()).isEqualTo(2);

        watermark(h, "01:10");
        assertThat(drain(h)).containsExactly("+I a [01:00-01:10) rows=1 sum=1");
        assertThat(windows(h)).containsExactly("a [01:05-01:15) 1");

        watermark(h, "01:15");
        assertThat(drain(h)).containsExactly("+I a [01:05-01:15) rows=1 sum=1");
        assertThat(windows(h)).isEmpty();
        assertThat(h.numEventTimeTimers()).isZero();
    }

    @Test
    void aRowLateForItsFirstSlidingWindowIsAddedToItsOpenOneOnly() throws Exception {
        // Issue 13 point 2: Spark drops a row from each window that has ended (end <=
        // watermark) and keeps it in the others.
        var h =
                harness(
                        SlidingEventTimeWindows.of(Duration.ofMinutes(10), FIVE_MINUTES),
                        WindowEmission.FINAL);
        push(h, "a", "01:08", 1);
        watermark(h, "01:10");
        assertThat(drain(h)).containsExactly("+I a [01:00-01:10) rows=1 sum=1");

        push(h, "a", "01:07", 2);
        assertThat(windows(h)).containsExactly("a [01:05-01:15) 2");
        assertThat(h.numEventTimeTimers()).isEqualTo(1);

        watermark(h, "01:15");
        assertThat(drain(h)).containsExactly("+I a [01:05-01:15) rows=2 sum=3");
    }

    @Test
    void theWatermarkItLastReceivedStillClosesWindowsAfterARestore() throws Exception {
        // A restored run's first rows may come before every channel has sent the watermark
        // again: the operator's own record of it still drops the row from its ended window.
        var before =
                harness(
                        SlidingEventTimeWindows.of(Duration.ofMinutes(10), FIVE_MINUTES),
                        WindowEmission.FINAL);
        push(before, "a", "01:08", 1);
        watermark(before, "01:10");
        assertThat(drain(before)).containsExactly("+I a [01:00-01:10) rows=1 sum=1");
        OperatorSubtaskState snapshot = before.snapshot(1, 0);

        var after =
                harness(
                        SlidingEventTimeWindows.of(Duration.ofMinutes(10), FIVE_MINUTES),
                        WindowEmission.FINAL,
                        snapshot);
        push(after, "a", "01:07", 2);
        assertThat(windows(after)).containsExactly("a [01:05-01:15) 2");
    }

    @Test
    void sessionsMergeWhenARowStartsExactlyAtTheEndOfAnother() throws Exception {
        var h =
                harness(
                        EventTimeSessionWindows.withGap(Duration.ofMinutes(2)),
                        WindowEmission.FINAL);

        push(h, "a", "00:00", 1);
        assertThat(sessions(h)).containsExactly("a [00:00-00:02) 1");

        // Spark: rows exactly one gap apart share a session.
        push(h, "a", "00:02", 2);
        push(h, "a", "00:06", 4);
        assertThat(sessions(h)).containsExactly("a [00:00-00:04) 2", "a [00:06-00:08) 1");
        assertThat(h.numEventTimeTimers())
                .as("one timer per key, at the first session's first end; not one per row")
                .isEqualTo(1);

        // The first session grew past its timer: the timer finds nothing ended and moves on.
        watermark(h, "00:02");
        assertThat(drain(h)).isEmpty();
        assertThat(h.numEventTimeTimers()).isEqualTo(1);

        watermark(h, "00:04");
        assertThat(drain(h)).containsExactly("+I a [00:00-00:04) rows=2 sum=3");
        assertThat(sessions(h)).containsExactly("a [00:06-00:08) 1");
        assertThat(h.numEventTimeTimers()).isEqualTo(1);

        watermark(h, "00:08");
        assertThat(drain(h)).containsExactly("+I a [00:06-00:08) rows=1 sum=4");
        assertThat(sessions(h)).isEmpty();
        assertThat(h.numEventTimeTimers()).isZero();
    }

    @Test
    void oneWatermarkWritesEveryEndedSessionOfAKeyInOrderAndKeepsTheOpenOnes() throws Exception {
        var h =
                harness(
                        EventTimeSessionWindows.withGap(Duration.ofMinutes(2)),
                        WindowEmission.FINAL);
        push(h, "a", "00:10", 1);
        push(h, "a", "00:00", 2);
        push(h, "a", "00:05", 4);
        push(h, "b", "00:01", 8);
        assertThat(h.numEventTimeTimers()).as("a's lowered once, b's").isEqualTo(3);

        watermark(h, "00:07");
        assertThat(drain(h))
                .containsExactly(
                        "+I a [00:00-00:02) rows=1 sum=2",
                        "+I a [00:05-00:07) rows=1 sum=4",
                        "+I b [00:01-00:03) rows=1 sum=8");
        assertThat(sessions(h)).containsExactly("a [00:10-00:12) 1");
        assertThat(h.numEventTimeTimers())
                .as("a's next timer is the one its first row set; b has none left")
                .isEqualTo(1);

        watermark(h, "00:12");
        assertThat(drain(h)).containsExactly("+I a [00:10-00:12) rows=1 sum=1");
        assertThat(h.numEventTimeTimers()).isZero();
    }

    @Test
    void sessionsBeyondTheHeapBudgetGoToRocksDbAndMergeFromThereExactly() throws Exception {
        var h =
                harness(
                        EventTimeSessionWindows.withGap(Duration.ofMinutes(2)),
                        WindowEmission.FINAL,
                        null,
                        new EmbeddedRocksDBStateBackend());
        function(h).limitHeldSessions(1);
        // Each row leaves more than one session held: all are written to RocksDB and dropped
        // from the heap, and the next row of the key reads them back.
        push(h, "a", "00:00", 1);
        push(h, "a", "00:03", 2);
        push(h, "b", "00:00", 4);
        push(h, "a", "00:01:30", 8);
        push(h, "a", "00:06", 16);
        assertThat(sessions(h))
                .containsExactly("a [00:00-00:05) 3", "a [00:06-00:08) 1", "b [00:00-00:02) 1");

        watermark(h, "00:08");
        assertThat(drain(h))
                .containsExactlyInAnyOrder(
                        "+I a [00:00-00:05) rows=3 sum=11",
                        "+I a [00:06-00:08) rows=1 sum=16",
                        "+I b [00:00-00:02) rows=1 sum=4");
        assertThat(sessions(h)).isEmpty();
        h.snapshot(1, 0);
        assertThat(stateRows(1).numRowsTotal()).isZero();
    }

    @Test
    void sessionsOfAnOlderCheckpointWithItsBucketIndexMergeAndCloseAndTheIndexIsCleared()
            throws Exception {
        // Step 1: a checkpoint as versions before the heap cache wrote it: a's session [00:00,
        // 00:02) in windows, listed in session-index under its gap-sized buckets, and its timer.
        var gap = EventTimeSessionWindows.withGap(Duration.ofMinutes(2));
        var older = harness(gap, WindowEmission.FINAL, null, new EmbeddedRocksDBStateBackend());
        KeyedStateBackend<String> backend = older.getOperator().getKeyedStateBackend();
        backend.setCurrentKey("a");
        long start = atMicros("00:00:00.000000");
        long gapMicros = Duration.ofMinutes(2).toNanos() / 1000;
        Tally session = new Tally.Function().add(new Reading("a", 0L, 5), new Tally());
        session.end = start + gapMicros;
        backend.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        WindowAggregateState.windows(Tally.class))
                .put(start, session);
        MapState<Long, long[]> index =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        WindowAggregateState.sessionIndex());
        index.put(start / gapMicros, new long[] {start});
        index.put(start / gapMicros + 1, new long[] {start});
        @SuppressWarnings("unchecked")
        var operator = (WindowAggregate.Operator<String, Reading, Tally>) older.getOperator();
        operator.getInternalTimerService("user-timers", VoidNamespaceSerializer.INSTANCE, operator)
                .registerEventTimeTimer(
                        VoidNamespace.INSTANCE, WindowAggregate.timerFor(session.end));
        OperatorSubtaskState snapshot = older.snapshot(1, 0);

        // Step 2: this version restores it; a row at the session's end merges into it.
        var after = harness(gap, WindowEmission.FINAL, snapshot, new EmbeddedRocksDBStateBackend());
        push(after, "a", "00:02", 2);
        assertThat(sessions(after)).containsExactly("a [00:00-00:04) 2");

        // Step 3: the older timer finds nothing ended; the session is written once at its end.
        watermark(after, "00:02");
        assertThat(drain(after)).isEmpty();
        watermark(after, "00:04");
        assertThat(drain(after)).containsExactly("+I a [00:00-00:04) rows=2 sum=7");

        // Step 4: the key's bucket index is gone from the state.
        KeyedStateBackend<String> restored = after.getOperator().getKeyedStateBackend();
        restored.setCurrentKey("a");
        assertThat(
                        restored.getPartitionedState(
                                        VoidNamespace.INSTANCE,
                                        VoidNamespaceSerializer.INSTANCE,
                                        WindowAggregateState.sessionIndex())
                                .isEmpty())
                .isTrue();
    }

    @Test
    void sessionsMergeOnMicrosecondsAsSparkDoes() throws Exception {
        var h =
                harness(
                        EventTimeSessionWindows.withGap(Duration.ofMinutes(2)),
                        WindowEmission.FINAL);

        // 0.5 ms less than one gap apart: one session, from the first row's microsecond to the
        // second's plus the gap.
        pushMicros(h, "a", "00:00:00.000700", 1);
        pushMicros(h, "a", "00:02:00.000200", 2);
        // 0.5 ms more than one gap apart, both in the same milliseconds as above: a session in
        // milliseconds would swallow the second; Spark's (microseconds) does not.
        pushMicros(h, "b", "00:00:00.000200", 4);
        pushMicros(h, "b", "00:02:00.000700", 8);
        // Exactly one gap apart to the microsecond: Spark merges at equality.
        pushMicros(h, "c", "00:00:00.000300", 16);
        pushMicros(h, "c", "00:02:00.000300", 32);
        assertThat(sessions(h))
                .containsExactly(
                        "a [00:00:00.000700-00:04:00.000200) 2",
                        "b [00:00:00.000200-00:02:00.000200) 1",
                        "b [00:02:00.000700-00:04:00.000700) 1",
                        "c [00:00:00.000300-00:04:00.000300) 2");
    }

    @Test
    void aSessionIsWrittenWithItsMicrosecondsOnceTheWatermarkTimesAThousandReachesItsEnd()
            throws Exception {
        var h =
                harness(
                        EventTimeSessionWindows.withGap(Duration.ofMinutes(2)),
                        WindowEmission.FINAL);
        pushMicros(h, "b", "00:00:00.000200", 4);
        pushMicros(h, "b", "00:02:00.000700", 8);

        // Spark: written once end <= watermark_ms * 1000; 00:02:00.000 < 00:02:00.000200.
        watermark(h, "00:02");
        assertThat(drain(h)).isEmpty();

        watermark(h, "00:02:00.001");
        assertThat(drain(h)).containsExactly("+I b [00:00:00.000200-00:02:00.000200) rows=1 sum=4");
        assertThat(sessions(h)).containsExactly("b [00:02:00.000700-00:04:00.000700) 1");

        watermark(h, "00:04:00.001");
        assertThat(drain(h)).containsExactly("+I b [00:02:00.000700-00:04:00.000700) rows=1 sum=8");
        assertThat(sessions(h)).isEmpty();
        assertThat(h.numEventTimeTimers()).isZero();
    }

    @Test
    void sessionsInMicrosecondsAndTheirTimersComeBackFromASnapshot() throws Exception {
        var gap = EventTimeSessionWindows.withGap(Duration.ofMinutes(2));
        var before = harness(gap, WindowEmission.FINAL);
        pushMicros(before, "a", "00:00:00.000700", 1);
        pushMicros(before, "a", "00:02:00.000200", 2);
        pushMicros(before, "b", "00:00:00.000200", 4);
        OperatorSubtaskState snapshot = before.snapshot(1, 0);

        var after = harness(gap, WindowEmission.FINAL, snapshot);
        assertThat(sessions(after))
                .containsExactly(
                        "a [00:00:00.000700-00:04:00.000200) 2",
                        "b [00:00:00.000200-00:02:00.000200) 1");
        // A row 0.5 ms past b's end, restored in microseconds: a session of its own.
        pushMicros(after, "b", "00:02:00.000700", 8);
        watermark(after, "00:02:00.001");
        assertThat(drain(after))
                .containsExactly("+I b [00:00:00.000200-00:02:00.000200) rows=1 sum=4");
        watermark(after, "00:04:00.001");
        assertThat(drain(after))
                .containsExactlyInAnyOrder(
                        "+I a [00:00:00.000700-00:04:00.000200) rows=2 sum=3",
                        "+I b [00:02:00.000700-00:04:00.000700) rows=1 sum=8");
    }

    @Test
    void changesModeWritesEveryChangeAndForgetsTheWindowSilentlyWhenTheWatermarkPassesIt()
            throws Exception {
        var h = harness(TumblingEventTimeWindows.of(FIVE_MINUTES), WindowEmission.CHANGES);

        push(h, "a", "00:01", 1);
        assertThat(drain(h)).containsExactly("+I a [00:00-00:05) rows=1 sum=1");
        push(h, "a", "00:02", 2);
        assertThat(drain(h)).containsExactly("+I a [00:00-00:05) rows=2 sum=3");
        assertThat(h.numEventTimeTimers()).isEqualTo(1);

        watermark(h, "00:05");
        assertThat(drain(h)).isEmpty();
        assertThat(windows(h)).isEmpty();
        assertThat(h.numEventTimeTimers()).isZero();
    }

    @Test
    void allModeKeepsEveryWindowForGoodAndSetsNoTimer() throws Exception {
        var h = harness(TumblingEventTimeWindows.of(FIVE_MINUTES), WindowEmission.ALL);

        push(h, "a", "00:01", 1);
        assertThat(drain(h)).containsExactly("+I a [00:00-00:05) rows=1 sum=1");
        assertThat(h.numEventTimeTimers()).isZero();

        watermark(h, "01:00");
        assertThat(drain(h)).isEmpty();
        assertThat(windows(h)).containsExactly("a [00:00-00:05) 1");

        // Complete mode drops no row by the watermark: an old row still counts.
        push(h, "a", "00:02", 2);
        assertThat(drain(h)).containsExactly("+I a [00:00-00:05) rows=2 sum=3");
    }

    @Test
    void allModeWritesADeleteForEverySessionThatAMergeSwallows() throws Exception {
        var h = harness(EventTimeSessionWindows.withGap(Duration.ofMinutes(2)), WindowEmission.ALL);

        push(h, "a", "00:00", 1);
        push(h, "a", "00:03", 2);
        assertThat(drain(h))
                .containsExactly(
                        "+I a [00:00-00:02) rows=1 sum=1", "+I a [00:03-00:05) rows=1 sum=2");

        // [00:01:30, 00:03:30) touches both sessions: one session of three rows remains.
        push(h, "a", "00:01:30", 4);
        assertThat(drain(h))
                .containsExactly(
                        "-D a [00:00-00:02) rows=1 sum=1",
                        "-D a [00:03-00:05) rows=1 sum=2",
                        "+I a [00:00-00:05) rows=3 sum=7");
        assertThat(sessions(h)).containsExactly("a [00:00-00:05) 3");
        assertThat(h.numEventTimeTimers()).isZero();
    }

    @Test
    void sessionsInUpdateModeAreRefusedAsSparkRefusesThem() {
        assertThatThrownBy(
                        () ->
                                aggregate(
                                        EventTimeSessionWindows.withGap(Duration.ofMinutes(2)),
                                        WindowEmission.CHANGES))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("use append or complete");
    }

    @Test
    void aSnapshotReportsTheWindowsHeldAndThoseChangedSinceTheLastOne() throws Exception {
        var h = harness(TumblingEventTimeWindows.of(FIVE_MINUTES), WindowEmission.FINAL);
        push(h, "a", "00:01", 1);
        push(h, "a", "00:02", 1);
        push(h, "b", "00:03", 1);
        push(h, "a", "00:06", 1);

        h.snapshot(1, 0);
        assertThat(stateRows(1)).isEqualTo(new Fragment.StateRows("window", 0, 3, 3));

        watermark(h, "00:05");
        push(h, "a", "00:07", 1);
        h.snapshot(2, 0);
        assertThat(stateRows(2)).isEqualTo(new Fragment.StateRows("window", 0, 1, 1));
    }

    @Test
    void windowsTheirTimersAndTheRowCountComeBackFromASnapshot() throws Exception {
        var before = harness(TumblingEventTimeWindows.of(FIVE_MINUTES), WindowEmission.FINAL);
        push(before, "a", "00:01", 1);
        push(before, "a", "00:02", 2);
        OperatorSubtaskState snapshot = before.snapshot(1, 0);

        var after =
                harness(TumblingEventTimeWindows.of(FIVE_MINUTES), WindowEmission.FINAL, snapshot);
        assertThat(windows(after)).containsExactly("a [00:00-00:05) 2");
        assertThat(after.numEventTimeTimers()).isEqualTo(1);

        watermark(after, "00:05");
        assertThat(drain(after)).containsExactly("+I a [00:00-00:05) rows=2 sum=3");
        after.snapshot(2, 0);
        assertThat(stateRows(2)).isEqualTo(new Fragment.StateRows("window", 0, 0, 0));
    }

    // ---------------------------------------------------------------------------------------

    private WindowAggregate<String, Reading, Tally> aggregate(
            WindowAssigner<?, TimeWindow> assigner, WindowEmission emission) {
        return new WindowAggregate.Spec<String, Reading, Tally>(
                        "window",
                        assigner,
                        new Tally.Function(),
                        Tally.class,
                        EMITTER,
                        emission,
                        scope())
                .overRows(r -> r.micros);
    }

    /** Five-minute tumbling windows in append mode, with RocksDB as the runs have it. */
    private KeyedOneInputStreamOperatorTestHarness<String, Reading, RowData> tumblingOnRocksDb(
            OperatorSubtaskState restored) throws Exception {
        return harness(
                TumblingEventTimeWindows.of(FIVE_MINUTES),
                WindowEmission.FINAL,
                restored,
                new EmbeddedRocksDBStateBackend());
    }

    private KeyedOneInputStreamOperatorTestHarness<String, Reading, RowData> harness(
            WindowAssigner<?, TimeWindow> assigner, WindowEmission emission) throws Exception {
        return harness(assigner, emission, null);
    }

    private KeyedOneInputStreamOperatorTestHarness<String, Reading, RowData> harness(
            WindowAssigner<?, TimeWindow> assigner,
            WindowEmission emission,
            OperatorSubtaskState restored)
            throws Exception {
        return harness(assigner, emission, restored, null);
    }

    private KeyedOneInputStreamOperatorTestHarness<String, Reading, RowData> harness(
            WindowAssigner<?, TimeWindow> assigner,
            WindowEmission emission,
            OperatorSubtaskState restored,
            StateBackend backend)
            throws Exception {
        var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new WindowAggregate.Operator<>(aggregate(assigner, emission)),
                        (Reading r) -> r.key,
                        Types.STRING);
        open.add(h);
        if (backend != null) {
            h.setStateBackend(backend);
        }
        h.setup(ROWS);
        if (restored != null) {
            h.initializeState(restored);
        }
        h.open();
        return h;
    }

    /** What the operator wrote since the last call, as {@code +I key [start-end) rows= sum=}. */
    private static List<String> drain(
            KeyedOneInputStreamOperatorTestHarness<String, Reading, RowData> h) {
        List<String> rows =
                h.extractOutputValues().stream()
                        .map(
                                r ->
                                        r.getRowKind().shortString()
                                                + " "
                                                + r.getString(0)
                                                + " ["
                                                + clock(r.getLong(1))
                                                + "-"
                                                + clock(r.getLong(2))
                                                + ") rows="
                                                + r.getLong(3)
                                                + " sum="
                                                + r.getLong(4))
                        .collect(Collectors.toList());
        h.getOutput().clear();
        return rows;
    }

    /** The fixed windows in the operator's keyed state (ms), as {@code key [start-end) rows}. */
    private static List<String> windows(
            KeyedOneInputStreamOperatorTestHarness<String, Reading, RowData> h) throws Exception {
        return Harness.windows(h, Harness::hhmm);
    }

    @SuppressWarnings("unchecked")
    private static WindowAggregate<String, Reading, Tally> function(
            KeyedOneInputStreamOperatorTestHarness<String, Reading, RowData> h) {
        return (WindowAggregate<String, Reading, Tally>)
                ((WindowAggregate.Operator<?, ?, ?>) h.getOperator()).getUserFunction();
    }

    /**
     * The sessions in the operator's keyed state (us), as {@code key [start-end) rows}, once the
     * operator has written its heap's sessions there (as it does before every snapshot).
     */
    private static List<String> sessions(
            KeyedOneInputStreamOperatorTestHarness<String, Reading, RowData> h) throws Exception {
        function(h).writeSessions();
        return Harness.windows(h, Harness::clock);
    }

    private Fragment.StateRows stateRows(long checkpointId) {
        return Fragments.read(scope().fragments(checkpointId)).stream()
                .filter(f -> f instanceof Fragment.StateRows)
                .map(f -> (Fragment.StateRows) f)
                .findFirst()
                .orElseThrow();
    }

    /** A row at {@code time} with microseconds, its millisecond as the record's timestamp. */
    private static void pushMicros(
            KeyedOneInputStreamOperatorTestHarness<String, Reading, RowData> h,
            String key,
            String time,
            long value)
            throws Exception {
        Reading r = Reading.atMicros(key, atMicros(time), value);
        h.processElement(r, r.time);
    }
}
