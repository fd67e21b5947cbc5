package org.flinkss.runtime.source.impl;

import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.api.connector.source.mocks.MockSplitEnumeratorContext;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.PermanentFailure;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.RunFence;
import org.flinkss.runtime.checkpoint.RunRecords;
import org.flinkss.runtime.progress.BatchSummary;
import org.flinkss.runtime.progress.Fragment;
import org.flinkss.runtime.progress.Fragments;
import org.flinkss.runtime.progress.RunScope;
import org.flinkss.runtime.source.GlobalRestartRequest;
import org.flinkss.runtime.source.ReadLimit;
import org.flinkss.runtime.source.ReadOrder;
import org.flinkss.runtime.source.SourceSpec;
import org.flinkss.runtime.source.impl.ListPlanner.Unit;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.time.Watermarks;
import org.flinkss.runtime.trigger.Trigger;

import javax.annotation.Nullable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.api.Assertions.tuple;

/**
 * {@link MicroBatchEnumerator} on Flink's testing enumerator context, with no cluster: the planner
 * is a real one over a list of units ({@link ListPlanner}), and the readers are the test, answering
 * as {@link MicroBatchReader} does (idle with running totals of the batch, the watermark emitted
 * after the records).
 */
class MicroBatchEnumeratorTest {

    private static final long DELAY = Duration.ofMinutes(10).toMillis();

    @TempDir Path base;

    /** What has landed in the source, in order: what a listing finds. */
    private final List<String> landed = new ArrayList<>();

    /** The event times of each unit's rows ({@link Long#MIN_VALUE}: a row without one). */
    private final Map<String, long[]> rows = new HashMap<>();

    private final List<Run> runs = new ArrayList<>();

    private CheckpointLayout layout() {
        return CheckpointLayout.of(Storage.location(base.toFile()), "q");
    }

    private RunScope scope() {
        return new RunScope(layout(), "run-1");
    }

    private SourceSpec ordered(ReadOrder order) {
        return new SourceSpec(
                "events", scope(), Trigger.availableNow(), ReadLimit.none(), false, order);
    }

    private SourceSpec availableNow(int maxUnitsPerTrigger) {
        return new SourceSpec("events", scope(), Trigger.availableNow(), maxUnitsPerTrigger);
    }

    private void land(String unit, String... eventTimes) {
        landed.add(unit);
        long[] times = new long[eventTimes.length];
        for (int i = 0; i < times.length; i++) {
            times[i] = eventTimes[i] == null ? Long.MIN_VALUE : at(eventTimes[i]);
        }
        rows.put(unit, times);
    }

    /** 2025-03-01 at {@code HH:mm} or {@code HH:mm:ss.SSS}, UTC, or an ISO instant. */
    private static long at(String time) {
        if (time.endsWith("Z")) {
            return Instant.parse(time).toEpochMilli();
        }
        String t = time.length() == 5 ? time + ":00" : time;
        return Instant.parse("2025-03-01T" + t + "Z").toEpochMilli();
    }

    @AfterEach
    void closeContexts() throws Exception {
        for (Run run : runs) {
            run.context.close();
        }
    }

    @Test
    void readersThatReportIdleTakeTheBatchsSplitsOneAtATime() throws Throwable {
        land("a", "00:21");
        land("b", "00:22");
        land("c", "00:23");
        Run run = new Run(availableNow(0), 2, null);

        // Step 1: the trigger lists the source; the readers register and emit the epoch; once a
        // checkpoint after that completes, batch 0 is planned and logged before any reader has
        // one of its splits.
        run.trigger();
        Run.Reader r0 = run.register(0);
        Run.Reader r1 = run.register(1);
        run.checkpoint(1);
        assertThat(planned(0)).containsExactly("a@0", "b@0", "c@0");
        assertThat(run.assignments()).isEmpty();

        // Step 2: each reader that says it is idle gets one split.
        r0.reportIdle();
        r1.reportIdle();
        assertThat(run.assignments()).containsExactly("0:a@0", "1:b@0");

        // Step 3: a reader done with its split takes the next; one with nothing left waits.
        r0.readAndReportIdle();
        assertThat(run.assignments()).containsExactly("0:a@0", "1:b@0", "0:c@0");
        r0.readAndReportIdle();
        assertThat(r0.watermarks())
                .as("reader 1 is still reading: only Spark's initial watermark, the epoch")
                .containsExactly("batch -1: 1970-01-01T00:00:00.000Z");

        // Step 4: the last reader done fixes the batch's watermark for all.
        r1.readAndReportIdle();
        assertThat(r0.watermarks())
                .containsExactly(
                        "batch -1: 1970-01-01T00:00:00.000Z", "batch 0: 2025-03-01T00:13:00.000Z");
        assertThat(r1.watermarks())
                .containsExactly(
                        "batch -1: 1970-01-01T00:00:00.000Z", "batch 0: 2025-03-01T00:13:00.000Z");
    }

    @Test
    void aFreshQuerysFirstBatchWaitsForEveryReaderToEmitTheEpochAndForACheckpointAfterIt()
            throws Throwable {
        land("a", "1969-12-31T23:58:00Z");
        land("b", "00:01");
        Run run = new Run(availableNow(0), 2, null);
        run.trigger();

        // Step 1: reader 0 registers, emits the epoch and asks for a split: it gets none while
        // reader 1 has not sent the epoch, or its rows could reach a window before it (issue 31).
        Run.Reader r0 = run.register(0);
        r0.reportIdle();
        assertThat(run.assignments()).isEmpty();

        // Step 2: reader 1 registers and emits it too; a checkpoint taken before that does not
        // count, and the client is asked for one now, for "batch -1".
        run.enumerator.snapshotState(1);
        Run.Reader r1 = run.register(1);
        run.enumerator.notifyCheckpointComplete(1);
        assertThat(run.assignments()).isEmpty();
        assertThat(new RunRecords(layout()).checkpointWanted("run-1", List.of("events")))
                .isEqualTo(-1);

        // Step 3: a checkpoint taken after it completes: the epoch has reached every operator
        // (aligned barriers follow it down every channel), and batch 0 goes out.
        run.checkpoint(2);
        assertThat(run.assignments()).containsExactly("0:a@0");
        r1.reportIdle();
        assertThat(run.assignments()).containsExactly("0:a@0", "1:b@0");
        assertThat(r0.watermarks()).containsExactly("batch -1: 1970-01-01T00:00:00.000Z");
    }

    @Test
    void contiguousReadersEachReadTheirOwnRunOfTheBatchInOrderWhoeverAsksFirst() throws Throwable {
        for (String unit : List.of("a", "b", "c", "d", "e")) {
            land(unit, "00:01");
        }
        Run run = new Run(ordered(ReadOrder.CONTIGUOUS), 2, null);
        run.trigger();
        Run.Reader r0 = run.register(0);
        Run.Reader r1 = run.register(1);
        run.checkpoint(1);

        // Reader 1 asks first, and twice before reader 0 asks at all: it still reads only the
        // second run of the batch (c, d, e by the middles of equal weights), in order.
        r1.reportIdle();
        r1.readAndReportIdle();
        r0.reportIdle();
        r1.readAndReportIdle();
        r1.readAndReportIdle();
        r0.readAndReportIdle();
        r0.readAndReportIdle();

        assertThat(run.assignments()).containsExactly("1:c@0", "1:d@0", "0:a@0", "1:e@0", "0:b@0");
    }

    @Test
    void oneReaderReadsTheWholeBatchInOrderWhileTheOthersWait() throws Throwable {
        for (String unit : List.of("a", "b", "c")) {
            land(unit, "00:01", "00:02");
        }
        Run run = new Run(ordered(ReadOrder.ONE_READER), 2, null);
        run.trigger();
        Run.Reader r0 = run.register(0);
        Run.Reader r1 = run.register(1);
        run.checkpoint(1);
        r1.reportIdle();
        assertThat(run.assignments()).as("reader 1 is idle, but not the reader").isEmpty();
        r0.reportIdle();
        r0.readAndReportIdle();
        r0.readAndReportIdle();
        r0.readAndReportIdle();

        assertThat(run.assignments()).containsExactly("0:a@0", "0:b@0", "0:c@0");
        assertThat(r1.watermarks())
                .as("the batch is read: every reader has its watermark")
                .containsExactly(
                        "batch -1: 1970-01-01T00:00:00.000Z", "batch 0: 2025-02-28T23:52:00.000Z");
    }

    /**
     * The state of a checkpoint taken inside batch 0 (a, b, c, d read in contiguous runs) once
     * reader 0 had a.
     */
    private EnumeratorState<Unit> contiguousBatchWithReader0OnA() throws Throwable {
        for (String unit : List.of("a", "b", "c", "d")) {
            land(unit, "00:01");
        }
        Run first = new Run(ordered(ReadOrder.CONTIGUOUS), 2, null);
        first.trigger();
        first.register(0);
        first.register(1);
        first.checkpoint(1);
        first.reader(0).reportIdle();
        return roundTrip(first.enumerator.snapshotState(2));
    }

    @Test
    void aRestoredEnumeratorGivesTheRestOfAContiguousRunToTheReaderThatHadIt() throws Throwable {
        EnumeratorState<Unit> state = contiguousBatchWithReader0OnA();

        // The job restarts from that checkpoint: reader 0 has a (in its own state), the rest
        // waits in the enumerator's; reader 1 asks first.
        Run restored = new Run(ordered(ReadOrder.CONTIGUOUS), 2, state);
        restored.trigger();
        Run.Reader r0 = restored.register(0);
        Run.Reader r1 = restored.register(1);
        restored.checkpoint(3);
        r1.reportIdle();
        r1.readAndReportIdle();
        r0.reportIdle();

        assertThat(restored.assignments()).containsExactly("1:c@0", "1:d@0", "0:b@0");
    }

    /**
     * Issue 31: a failover to a checkpoint taken inside a batch. Restored readers hold the splits
     * they got back from their own state, and no split is given out, until every reader has emitted
     * the restored watermark and a checkpoint taken after that has completed: the batch's rows late
     * for windows that fired before the failover then meet that watermark everywhere.
     */
    @Test
    void
            aBatchRestoredMidReadIsReleasedOnlyOnceEveryReaderEmittedTheWatermarkAndACheckpointFollowed()
                    throws Throwable {
        // Batch 0 is a; batch 1 is c, late for a window batch 0's watermark (00:20) closed.
        land("a", "00:30");
        land("c", "00:05");
        Run first = new Run(availableNow(1), 2, null);
        first.registerAll();
        first.trigger();
        first.readAndSeal();
        first.checkpoint(1);
        // The job fails after a checkpoint taken once reader 0 had c, before it read it.
        EnumeratorState<Unit> state = roundTrip(first.enumerator.snapshotState(2));
        assertThat(state.inFlight.batchId).isEqualTo(1);
        assertThat(state.inFlight.readDone).isNull();
        assertThat(first.assignments()).containsExactly("0:a@0", "0:c@1");

        // Step 1: restored, reader 0 has c back from its own state; both readers are sent the
        // watermark batch 0 ended with; nothing is released while it is not in a checkpoint.
        Run second = new Run(availableNow(1), 2, state);
        second.trigger();
        Run.Reader r0 = second.register(0);
        r0.queue.add(state.inFlight.splits.get(0));
        assertThat(r0.watermarks()).containsExactly("batch 0: 2025-03-01T00:20:00.000Z");
        second.enumerator.snapshotState(3);
        Run.Reader r1 = second.register(1);
        r1.reportIdle();
        assertThat(second.releases()).isEmpty();

        // Step 2: a checkpoint taken before the last reader emitted it does not count; the client
        // is asked for one after it (for "batch 0", the last sealed).
        second.enumerator.notifyCheckpointComplete(3);
        assertThat(second.releases()).isEmpty();
        assertThat(new RunRecords(layout()).checkpointWanted("run-1", List.of("events")))
                .isEqualTo(0);

        // Step 3: once one taken after it completes, every registered reader is released; the
        // batch is read and sealed from the watermark in force before it.
        second.checkpoint(4);
        assertThat(second.releases()).containsExactly(0, 1);
        r0.readAndReportIdle();
        second.emitWatermarks();
        second.checkpoint(5);
        assertThat(sourceBatches(5))
                .extracting(b -> b.batchId, b -> b.numInputRows, b -> b.watermarkBefore)
                .containsExactly(tuple(1L, 1L, at("00:20")));
    }

    @Test
    void aReaderWithoutRestoredSplitsGetsNoSplitOfTheRestoredBatchBeforeTheRelease()
            throws Throwable {
        EnumeratorState<Unit> state = contiguousBatchWithReader0OnA();

        Run restored = new Run(ordered(ReadOrder.CONTIGUOUS), 2, state);
        restored.trigger();
        restored.register(0);
        restored.register(1).reportIdle();
        assertThat(restored.assignments()).as("held until a checkpoint").isEmpty();
        restored.checkpoint(3);
        assertThat(restored.assignments()).containsExactly("1:c@0");
    }

    @Test
    void aReaderThatRegistersAgainDuringTheHoldMustEmitTheWatermarkAgain() throws Throwable {
        land("a", "00:30");
        Run first = new Run(availableNow(0), 2, null);
        first.registerAll();
        first.trigger();
        EnumeratorState<Unit> state = roundTrip(first.enumerator.snapshotState(1));

        Run second = new Run(availableNow(0), 2, state);
        second.trigger();
        second.register(0);
        second.register(1);
        // Reader 1's task restarts before the hold ends: what it emitted before does not count.
        second.context.registeredReaders().remove(1);
        second.context.registerReader(new ReaderInfo(1, "localhost"));
        second.enumerator.addReader(1);
        second.checkpoint(2);
        assertThat(second.releases()).as("reader 1 has not emitted it again").isEmpty();

        second.reader(1).emitWatermark();
        second.checkpoint(3);
        assertThat(second.releases()).containsExactly(0, 1);
    }

    @Test
    void withoutAWatermarkABatchRestoredMidReadIsReleasedAtOnce() throws Throwable {
        land("a", "00:30");
        Run first = new Run(availableNow(0), 2, null, Map.of());
        first.registerAll();
        first.trigger();
        EnumeratorState<Unit> state = roundTrip(first.enumerator.snapshotState(1));

        Run second = new Run(availableNow(0), 2, state, Map.of());
        second.trigger();
        second.register(0);
        second.register(1);
        assertThat(second.releases()).containsExactly(0, 1);
    }

    @Test
    void maxUnitsPerTriggerCutsWhatIsAvailableIntoBatchesOfThatMany() throws Throwable {
        for (String unit : List.of("a", "b", "c", "d", "e")) {
            land(unit, "00:01");
        }
        Run run = new Run(availableNow(2), 2, null);
        run.registerAll();

        run.trigger();
        run.readAndSeal();
        run.checkpoint(1);
        run.readAndSeal();
        run.checkpoint(2);
        run.readAndSeal();
        run.checkpoint(3);

        assertThat(run.batches())
                .containsExactly(
                        entry(0L, List.of("a", "b")),
                        entry(1L, List.of("c", "d")),
                        entry(2L, List.of("e")));
        assertThat(run.planner.listings).as("availableNow lists the source once").isEqualTo(1);
        assertThat(Storage.localFile(scope().caughtUpMarker("events"), "a test file").toPath())
                .exists();
    }

    @Test
    void aBatchIsSealedOnlyWhenEveryReaderIsDoneAndHasEmittedItsWatermark() throws Throwable {
        land("a", "00:10");
        land("b", "00:20");
        Run run = new Run(availableNow(0), 2, null);
        run.trigger();
        Run.Reader r0 = run.register(0);
        Run.Reader r1 = run.register(1);
        run.checkpoint(0);
        r0.reportIdle();
        r0.readAndReportIdle();
        r0.readAndReportIdle();
        assertThat(r0.read).containsExactly("a", "b");

        // Reader 1 has not said it is idle yet: the batch is not read everywhere.
        assertThat(r0.watermarks()).containsExactly("batch -1: 1970-01-01T00:00:00.000Z");

        r1.reportIdle();
        assertThat(r0.watermarks())
                .containsExactly(
                        "batch -1: 1970-01-01T00:00:00.000Z", "batch 0: 2025-03-01T00:10:00.000Z");

        // One reader emitted the watermark: the batch is read but not sealed.
        r0.emitWatermark();
        EnumeratorState<Unit> halfway = run.enumerator.snapshotState(1);
        assertThat(halfway.inFlight).isNotNull();
        assertThat(halfway.inFlight.readDone.watermarkAfter).isEqualTo(at("00:10"));
        assertThat(halfway.watermark).as("not in force before the seal").isEqualTo(Long.MIN_VALUE);
        assertThat(Storage.localFile(scope().fragments(1), "a test file").toPath())
                .as("nothing sealed to report")
                .doesNotExist();

        r1.emitWatermark();
        EnumeratorState<Unit> sealed = run.enumerator.snapshotState(2);
        assertThat(sealed.inFlight).isNull();
        assertThat(sealed.nextBatchId).isEqualTo(1);
        assertThat(sealed.watermark).isEqualTo(at("00:10"));
        assertThat(sealed.plannerCommitted).isNotNull();
        assertThat(sourceBatches(2)).extracting(b -> b.batchId).containsExactly(0L);
    }

    @Test
    void theWatermarkIsTheMaxEventTimeMinusTheDelayAndNeverMovesBack() throws Throwable {
        land("a", "00:20", "00:30");
        land("b", "00:10");
        land("c", (String) null);
        land("d", "00:45");
        Run run = new Run(availableNow(1), 2, null);
        run.registerAll();
        run.trigger();
        List<BatchSummary> sealed = new ArrayList<>();
        for (long checkpoint = 1; checkpoint <= 4; checkpoint++) {
            run.readAndSeal();
            run.checkpoint(checkpoint);
            sealed.addAll(sourceBatches(checkpoint));
        }

        // a: 00:30 - 10 min; b is older (00:00 would move it back); c has no event time; d moves
        // it.
        assertThat(run.reader(0).watermarks())
                .containsExactly(
                        "batch -1: 1970-01-01T00:00:00.000Z",
                        "batch 0: 2025-03-01T00:20:00.000Z",
                        "batch 1: 2025-03-01T00:20:00.000Z",
                        "batch 2: 2025-03-01T00:20:00.000Z",
                        "batch 3: 2025-03-01T00:35:00.000Z");
        assertThat(sealed)
                .extracting(b -> b.watermarkBefore, b -> b.watermarkAfter)
                .containsExactly(
                        tuple(Long.MIN_VALUE, at("00:20")),
                        tuple(at("00:20"), at("00:20")),
                        tuple(at("00:20"), at("00:20")),
                        tuple(at("00:20"), at("00:35")));
        assertThat(sealed.get(2).numInputRows).as("a row without event time is read").isEqualTo(1);
    }

    /**
     * Issue 13 point 1 and 5: one watermark per {@code withWatermark} node (here views and buys,
     * each filtered before it), the query's the minimum across them; a node no row has reached
     * holds it at the epoch (Spark's {@code WatermarkTracker}).
     */
    @Test
    void theWatermarkIsTheMinimumAcrossNodesAndANodeWithoutRowsHoldsIt() throws Throwable {
        // One unit per batch: views only, then buys, more views, an older buy.
        land("view-1", "00:40");
        land("buy-1", "00:30");
        land("view-2", "00:50");
        land("buy-2", "00:20");
        Map<String, java.util.function.Predicate<String>> nodes =
                Map.of("buys", unit -> unit.startsWith("buy"), "views", u -> u.startsWith("view"));
        Run run = new Run(availableNow(1), 2, null, nodes);
        run.registerAll();
        run.trigger();
        List<BatchSummary> sealed = new ArrayList<>();
        EnumeratorState<Unit> restored = null;
        for (long checkpoint = 1; checkpoint <= 4; checkpoint++) {
            run.readAndSeal();
            restored = run.checkpoint(checkpoint);
            sealed.addAll(sourceBatches(checkpoint));
        }
        // Batch 0: the buys' node has seen no row, so the epoch (issue 13 point 5); batch 1:
        // buys at 00:20, views at 00:30, the minimum; batch 2: views move to 00:40, buys hold it;
        // batch 3: an older buy does not move the buys' node back.
        assertThat(sealed)
                .extracting(b -> b.watermarkBefore, b -> b.watermarkAfter)
                .containsExactly(
                        tuple(Long.MIN_VALUE, 0L),
                        tuple(0L, at("00:20")),
                        tuple(at("00:20"), at("00:20")),
                        tuple(at("00:20"), at("00:20")));

        // A new run of the query (Spark's tracker lives in the running query, so it starts
        // empty): views alone do not move the watermark, as no buy has reached the buys' node in
        // this run; once one has, the minimum moves it.
        land("view-3", "00:55");
        land("buy-3", "00:36");
        Run second = new Run(availableNow(1), 2, restored, nodes);
        second.registerAll();
        second.trigger();
        sealed.clear();
        for (long checkpoint = 5; checkpoint <= 6; checkpoint++) {
            second.readAndSeal();
            second.checkpoint(checkpoint);
            sealed.addAll(sourceBatches(checkpoint));
        }
        assertThat(sealed)
                .extracting(b -> b.watermarkBefore, b -> b.watermarkAfter)
                .containsExactly(tuple(at("00:20"), at("00:20")), tuple(at("00:20"), at("00:26")));
    }

    @Test
    void aSourceWithoutAWatermarkTellsReadersThereIsNone() throws Throwable {
        land("a", "00:20");
        Run run = new Run(availableNow(0), 2, null, Map.of());
        run.registerAll();
        run.trigger();
        run.readAndSeal();

        assertThat(run.reader(0).watermarks()).containsExactly("batch 0: none");
        assertThat(run.enumerator.snapshotState(1).watermark).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void theNextBatchWaitsForACheckpointTakenAfterTheSeal() throws Throwable {
        land("a", "00:10");
        land("b", "00:20");
        Run run = new Run(availableNow(1), 2, null);
        run.registerAll();
        run.trigger();
        run.readAll();

        // Step 1: a checkpoint taken while batch 0 is still being sealed does not commit it.
        run.enumerator.snapshotState(1);
        run.emitWatermarks();
        run.enumerator.notifyCheckpointComplete(1);
        assertThat(run.batches()).containsOnlyKeys(0L);

        // Step 2: the first one taken after the seal commits it once it completes, and not
        // before; a later checkpoint still in progress does not hold the next batch back.
        run.enumerator.snapshotState(2);
        run.enumerator.snapshotState(3);
        assertThat(run.batches()).containsOnlyKeys(0L);
        run.enumerator.notifyCheckpointComplete(2);
        assertThat(run.batches()).containsOnlyKeys(0L, 1L);
        assertThat(run.batches().get(1L)).containsExactly("b");
    }

    @Test
    void aRestartedJobReadsThePlannedBatchAgainEvenIfTheSourceChangedSince() throws Throwable {
        land("a", "00:10");
        land("b", "00:20");
        Run first = new Run(availableNow(0), 2, null);
        first.registerAll();
        first.trigger();
        first.readAll();
        // The job dies before any checkpoint; meanwhile b is deleted and c lands.
        landed.remove("b");
        land("c", "00:30");

        Run second = new Run(availableNow(0), 2, null);
        second.registerAll();
        second.trigger();
        assertThat(second.batches())
                .as("batch 0 from the offset log, not from a new listing")
                .containsExactly(entry(0L, List.of("a", "b")));

        second.readAndSeal();
        second.checkpoint(1);
        assertThat(second.batches()).containsEntry(1L, List.of("c"));
    }

    @Test
    void anEnumeratorRestoredWithItsBatchReadKeepsTheWatermarkItFixed() throws Throwable {
        land("a", "00:30");
        land("b", "00:40");
        Run first = new Run(availableNow(0), 2, null);
        first.registerAll();
        first.trigger();
        first.readAll();
        assertThat(first.reader(0).watermarks())
                .containsExactly(
                        "batch -1: 1970-01-01T00:00:00.000Z", "batch 0: 2025-03-01T00:30:00.000Z");
        // The job dies after this checkpoint, before the readers emitted the watermark.
        EnumeratorState<Unit> restored = roundTrip(first.enumerator.snapshotState(1));
        assertThat(restored.inFlight.readDone.watermarkAfter).isEqualTo(at("00:30"));

        // Step 1: every reader that registers is told the fixed watermark before any record.
        Run second = new Run(availableNow(0), 2, restored);
        Run.Reader r0 = second.register(0);
        Run.Reader r1 = second.register(1);
        assertThat(r0.watermarks()).containsExactly("batch 0: 2025-03-01T00:30:00.000Z");

        // Step 2: totals restored in a reader's state do not recompute it.
        r1.totals.add(0, at("00:55"), false);
        second.trigger();
        r1.reportIdle();
        assertThat(r1.watermarks()).containsOnly("batch 0: 2025-03-01T00:30:00.000Z");

        // Step 3: the batch is sealed with it; batch 0's units are committed, nothing is left.
        second.emitWatermarks();
        second.checkpoint(2);
        assertThat(sourceBatches(2))
                .extracting(b -> b.batchId, b -> b.watermarkAfter)
                .containsExactly(tuple(0L, at("00:30")));
        assertThat(second.batches()).as("no split assigned again").isEmpty();
        assertThat(Storage.localFile(scope().caughtUpMarker("events"), "a test file").toPath())
                .exists();
    }

    @Test
    void anEnumeratorRestoredBetweenBatchesGivesReadersItsWatermarkAndReadsOnlyWhatIsNew()
            throws Throwable {
        land("a", "00:30");
        Run first = new Run(availableNow(0), 2, null);
        first.registerAll();
        first.trigger();
        first.readAndSeal();
        EnumeratorState<Unit> restored = roundTrip(first.checkpoint(1));
        land("b", "00:50");

        Run second = new Run(availableNow(0), 2, restored);
        Run.Reader r0 = second.register(0);
        assertThat(r0.watermarks()).containsExactly("batch 0: 2025-03-01T00:20:00.000Z");
        second.register(1);
        // A restored run's first batch, too, waits for every reader's starting watermark and a
        // checkpoint after it: Flink restores no operator's watermark.
        second.checkpoint(2);
        second.trigger();
        second.readAll();

        assertThat(second.batches()).containsExactly(entry(1L, List.of("b")));
    }

    @Test
    void aReaderRestartedAloneFailsTheWholeQueryOnce() throws Throwable {
        land("a", "00:10");
        Run run = new Run(availableNow(0), 2, null);
        run.registerAll();
        run.trigger();
        List<MicroBatchSplit<Unit>> back = List.of(MicroBatchSplit.of(new Unit("a", 0, 0)));

        assertThatThrownBy(() -> run.enumerator.addSplitsBack(back, 1))
                .isInstanceOf(GlobalRestartRequest.class)
                .hasMessageContaining("source 'events': reader 1 ");
        // The global failover that follows hands other splits back: no second failure.
        run.enumerator.addSplitsBack(back, 0);
    }

    @Test
    void anAvailableNowRunIsCaughtUpWhenItSealsTheLastBatchOfWhatWasThereAtItsStart()
            throws Throwable {
        land("a", "00:10");
        land("b", "00:20");
        Run run = new Run(availableNow(1), 2, null);
        run.registerAll();
        run.trigger();
        land("c", "00:30");

        run.readAndSeal();
        assertThat(Storage.localFile(scope().caughtUpMarker("events"), "a test file").toPath())
                .doesNotExist();
        run.checkpoint(1);
        run.readAndSeal();
        assertThat(Storage.localFile(scope().caughtUpMarker("events"), "a test file").toPath())
                .exists();
        run.checkpoint(2);

        assertThat(run.batches()).as("c landed after the start").containsOnlyKeys(0L, 1L);
    }

    @Test
    void anAvailableNowRunWithNothingNewIsCaughtUpAtOnce() throws Throwable {
        Run run = new Run(availableNow(0), 2, null);
        run.registerAll();
        run.trigger();

        assertThat(Storage.localFile(scope().caughtUpMarker("events"), "a test file").toPath())
                .exists();
        assertThat(run.assignments()).isEmpty();
        assertThat(Storage.localFile(layout().offsets("events"), "a test file").toPath())
                .as("no batch planned")
                .doesNotExist();
    }

    @Test
    void aJobFencedByALaterRunPlansNoBatchAndCompletesNoCheckpoint() throws Throwable {
        land("a", "00:10");
        Run run = new Run(availableNow(0), 2, null);
        run.registerAll();
        run.enumerator.snapshotState(1); // the directory is still this run's (or nobody's)

        RunFence.claim(layout(), "run-2"); // a later run of the query took the checkpoint
        assertThatThrownBy(run::trigger)
                .isInstanceOf(PermanentFailure.class)
                .hasMessageContaining("run run-1 of checkpoint")
                .hasMessageContaining("is fenced");
        assertThat(run.assignments()).as("no split handed out").isEmpty();
        assertThat(Storage.localFile(layout().offsets("events"), "a test file").toPath())
                .as("no batch planned")
                .doesNotExist();
        assertThatThrownBy(() -> run.enumerator.snapshotState(2))
                .isInstanceOf(PermanentFailure.class);
    }

    @Test
    void aProcessingTimeRunReadsWhatLandedSinceAtItsNextTrigger() throws Throwable {
        land("a", "00:10");
        SourceSpec every10s =
                new SourceSpec(
                        "events", scope(), Trigger.processingTime(Duration.ofSeconds(10)), 0);
        Run run = new Run(every10s, 2, null);
        run.registerAll();
        run.trigger();
        land("b", "00:20");
        run.readAndSeal();
        run.checkpoint(1);
        assertThat(run.batches()).as("b is not listed yet").containsOnlyKeys(0L);

        run.trigger();
        assertThat(run.batches()).containsEntry(1L, List.of("b"));
        assertThat(Storage.localFile(scope().caughtUpMarker("events"), "a test file").toPath())
                .as("only availableNow ends")
                .doesNotExist();
    }

    private SourceSpec realTime() {
        return new SourceSpec("events", scope(), Trigger.realTime(Duration.ofMinutes(10)), 0);
    }

    /** A real-time run of two readers that has read and sealed its first step: a, at 00:10. */
    private Run realTimeRunPastItsFirstStep() throws Throwable {
        land("a", "00:10");
        Run run = new Run(realTime(), 2, null);
        run.registerAll();
        run.trigger();
        run.readAndSeal();
        return run;
    }

    @Test
    void aRealTimeRunStartsTheNextStepWithoutACheckpointAndReportsAllItsStepsAsOneBatch()
            throws Throwable {
        Run run = realTimeRunPastItsFirstStep();

        // Step 1: b lands after step 0 was sealed; the next look plans it at once, with no
        // checkpoint in between (a micro-batch would wait for one).
        land("b", "00:20", "00:30");
        run.trigger();
        assertThat(run.batches()).containsEntry(0L, List.of("a")).containsEntry(1L, List.of("b"));
        run.readAndSeal();

        // Step 2: the checkpoint reports both steps as one batch, named after the last step.
        run.enumerator.snapshotState(1);
        assertThat(sourceBatches(1))
                .extracting(
                        b -> b.batchId,
                        b -> b.numInputRows,
                        b -> b.numSplits,
                        b -> b.minEventTime,
                        b -> b.maxEventTime)
                .containsExactly(tuple(1L, 3L, 2, at("00:10"), at("00:30")));

        // Step 3: the steps' plans are not written to the offset log.
        Path offsets =
                Storage.localFile(scope().layout().offsets("events"), "a test file").toPath();
        if (Files.exists(offsets)) {
            try (var files = Files.list(offsets)) {
                assertThat(files).as("plans in the offset log").isEmpty();
            }
        }
    }

    @Test
    void aRealTimeLookThatFindsNothingNewDoesNotReadTheFenceButTheNextStepAndCheckpointsDo()
            throws Throwable {
        Run run = realTimeRunPastItsFirstStep();

        // Step 1: a later run takes the checkpoint. A look every 10 ms with nothing new reads no
        // file (on an object store, two requests a look), so these looks do not see the fence.
        RunFence.claim(layout(), "run-2");
        run.trigger();
        run.trigger();
        assertThat(run.batches()).containsOnlyKeys(0L);

        // Step 2: the first look with something to read does, and plans nothing.
        land("b", "00:20");
        assertThatThrownBy(run::trigger)
                .isInstanceOf(PermanentFailure.class)
                .hasMessageContaining("is fenced");
        assertThat(run.batches()).containsOnlyKeys(0L);

        // Step 3: and so does every checkpoint: a fenced job completes none.
        assertThatThrownBy(() -> run.enumerator.snapshotState(1))
                .isInstanceOf(PermanentFailure.class)
                .hasMessageContaining("is fenced");
    }

    /**
     * A real-time run looks at the source as often as its planner says (a landing folder on an
     * object store once a second, not every 10 ms); a processing-time run at its trigger's
     * interval.
     */
    @Test
    void aRealTimeRunLooksAtTheSourceAsOftenAsItsPlannerSays() {
        ListPlanner planner = new ListPlanner(landed);
        planner.realTimeLook = Duration.ofSeconds(1);
        assertThat(periodsScheduledBy(realTime(), planner))
                .as("the look, then the fence's check")
                .containsExactly(1_000L, 1_000L);

        SourceSpec every30s =
                new SourceSpec(
                        "events", scope(), Trigger.processingTime(Duration.ofSeconds(30)), 0);
        assertThat(periodsScheduledBy(every30s, planner)).containsExactly(30_000L, 1_000L);
    }

    /** The periods of what {@code spec}'s enumerator, started, calls again and again. */
    private List<Long> periodsScheduledBy(SourceSpec spec, ListPlanner planner) {
        List<Long> periods = new ArrayList<>();
        MockSplitEnumeratorContext<MicroBatchSplit<Unit>> context =
                new MockSplitEnumeratorContext<>(2) {
                    @Override
                    public <T> void callAsync(
                            Callable<T> callable,
                            BiConsumer<T, Throwable> handler,
                            long initialDelay,
                            long period) {
                        periods.add(period);
                        super.callAsync(callable, handler, initialDelay, period);
                    }
                };
        new MicroBatchEnumerator<>(context, spec, planner, null, List.of(DELAY)).start();
        return periods;
    }

    @Test
    void aRealTimeRunReadsAPlanRecordedBeforeTheRestartEvenWhenItsSourceShowsNothingNew()
            throws Throwable {
        land("a", "00:10");
        Run first = new Run(availableNow(0), 2, null);
        first.registerAll();
        first.trigger();
        first.readAll();
        // The job dies before any checkpoint, and a is deleted: a listing finds nothing now.
        landed.remove("a");

        Run second = new Run(realTime(), 2, null);
        second.registerAll();
        second.trigger();
        assertThat(second.batches())
                .as("batch 0 from the offset log, though a look finds nothing new")
                .containsExactly(entry(0L, List.of("a")));
    }

    @Test
    void aSealedBatchIsReportedWithEveryCheckpointUntilOneCompletes() throws Throwable {
        land("a", "00:10", "00:20");
        land("b", "00:30");
        Run run = new Run(availableNow(0), 2, null);
        run.registerAll();
        run.trigger();
        run.enumerator.snapshotState(1);
        assertThat(Storage.localFile(scope().fragments(1), "a test file").toPath())
                .as("nothing sealed yet")
                .doesNotExist();

        run.readAndSeal();
        run.enumerator.snapshotState(2);
        // Checkpoint 2 does not complete: the batch goes again with checkpoint 3.
        run.enumerator.snapshotState(3);
        run.enumerator.notifyCheckpointComplete(3);
        run.enumerator.snapshotState(4);

        BatchSummary batch = sourceBatches(2).get(0);
        assertThat(batch.batchId).isZero();
        assertThat(batch.numInputRows).isEqualTo(3);
        assertThat(batch.numSplits).isEqualTo(2);
        assertThat(batch.minEventTime).isEqualTo(at("00:10"));
        assertThat(batch.maxEventTime).isEqualTo(at("00:30"));
        assertThat(batch.avgEventTime).isEqualTo((double) at("00:20"));
        assertThat(batch.watermarkBefore).isEqualTo(Long.MIN_VALUE);
        assertThat(batch.watermarkAfter).isEqualTo(at("00:20"));
        assertThat(batch.startOffset).containsExactly(entry("logOffset", -1), entry("units", 0));
        assertThat(batch.endOffset).containsExactly(entry("logOffset", 0), entry("units", 2));
        assertThat(sourceBatches(3)).extracting(b -> b.batchId).containsExactly(0L);
        assertThat(Storage.localFile(scope().fragments(4), "a test file").toPath())
                .as("checkpoint 3 carried it")
                .doesNotExist();
    }

    @Test
    void aReaderThatReportsItsTotalsAgainIsCountedOnce() throws Throwable {
        land("a", "00:10", "00:11");
        land("b", "00:12");
        Run run = new Run(availableNow(0), 2, null);
        run.trigger();
        Run.Reader r0 = run.register(0);
        Run.Reader r1 = run.register(1);
        run.checkpoint(0);
        r0.reportIdle();
        r1.reportIdle();
        r0.read();
        // Running totals, never deltas: a report sent twice (or again after a restore) is harmless.
        r0.reportIdle();
        r0.reportIdle();
        r1.readAndReportIdle();
        run.emitWatermarks();
        run.checkpoint(1);

        assertThat(sourceBatches(1).get(0).numInputRows).isEqualTo(3);
    }

    @Test
    void aSourceThatCannotBeListedFailsNamingItself() {
        Run run = new Run(availableNow(0), 2, null);
        run.planner.listingFails = new IOException("permission denied: /landing");

        assertThatThrownBy(run::trigger)
                .hasMessage(
                        "source 'events': cannot list what is available: permission denied:"
                                + " /landing");
    }

    // ---------------------------------------------------------------------------------------

    /** The units batch {@code batchId} was planned with, from the source's offset log. */
    private List<String> planned(long batchId) throws IOException {
        return new BatchPlans<>(layout().offsets("events"), new Unit.Serializer())
                .read(batchId).stream().map(Unit::toString).collect(Collectors.toList());
    }

    /** The batches the source reported with checkpoint {@code checkpointId}. */
    private List<BatchSummary> sourceBatches(long checkpointId) {
        List<BatchSummary> batches = new ArrayList<>();
        for (Fragment f : Fragments.read(scope().fragments(checkpointId))) {
            if (f instanceof Fragment.SourceBatches s && s.source().equals("events")) {
                batches.addAll(s.batches());
            }
        }
        return batches;
    }

    private static EnumeratorState<Unit> roundTrip(EnumeratorState<Unit> state) throws IOException {
        EnumeratorState.Serializer<Unit> serializer =
                new EnumeratorState.Serializer<>(new Unit.Serializer());
        return serializer.deserialize(serializer.getVersion(), serializer.serialize(state));
    }

    /** One enumerator on Flink's testing context, with the readers of its job. */
    private final class Run {
        final MockSplitEnumeratorContext<MicroBatchSplit<Unit>> context;
        final ListPlanner planner = new ListPlanner(landed);
        final MicroBatchEnumerator<Unit> enumerator;
        final SourceSpec spec;
        private final Map<Integer, Reader> readers = new TreeMap<>();
        private int delivered;

        /**
         * The source's watermark nodes: which units' rows reach each (the readers count them), and
         * its delay.
         */
        final List<java.util.function.Predicate<String>> nodes;

        /** A source with one watermark node that every row reaches (delay DELAY). */
        Run(SourceSpec spec, int parallelism, @Nullable EnumeratorState<Unit> restored) {
            this(spec, parallelism, restored, Map.of("all", unit -> true));
        }

        /** A source with watermark nodes, by name: which units' rows reach each (delay DELAY). */
        Run(
                SourceSpec spec,
                int parallelism,
                @Nullable EnumeratorState<Unit> restored,
                Map<String, java.util.function.Predicate<String>> nodesByName) {
            this.spec = spec;
            this.context = new MockSplitEnumeratorContext<>(parallelism);
            this.nodes = new ArrayList<>(new TreeMap<>(nodesByName).values());
            List<Long> delays = new ArrayList<>();
            nodes.forEach(n -> delays.add(DELAY));
            this.enumerator = new MicroBatchEnumerator<>(context, spec, planner, restored, delays);
            runs.add(this);
            enumerator.start();
        }

        /**
         * A reader registers and polls for the first time: it emits the watermark it was sent to
         * start from, if any, before anything else.
         */
        Reader register(int subtask) throws Exception {
            context.registerReader(new ReaderInfo(subtask, "localhost"));
            Reader reader = new Reader(subtask);
            readers.put(subtask, reader);
            enumerator.addReader(subtask);
            if (!reader.advances().isEmpty()) {
                reader.emitWatermark();
            }
            return reader;
        }

        /**
         * Every reader registers and emits its starting watermark; checkpoint 0, which the first
         * batch waits for, completes; then every reader polls once: with nothing to read, it
         * reports idle.
         */
        void registerAll() throws Exception {
            for (int i = 0; i < context.currentParallelism(); i++) {
                register(i);
            }
            checkpoint(0);
            readers.values().forEach(Reader::poll);
        }

        Reader reader(int subtask) {
            return readers.get(subtask);
        }

        /** The trigger fires: the planner looks at the source, and a batch starts if it can. */
        void trigger() throws Throwable {
            if (spec.trigger().isAvailableNow()) {
                context.runNextOneTimeCallable();
            } else {
                context.runPeriodicCallable(0);
            }
        }

        /** Every reader polls until none has anything left to read of the batch. */
        void readAll() {
            boolean more = true;
            while (more) {
                more = false;
                for (Reader reader : readers.values()) {
                    more |= reader.poll();
                }
            }
        }

        void emitWatermarks() throws Exception {
            for (Reader reader : readers.values()) {
                reader.emitWatermark();
            }
        }

        void readAndSeal() throws Exception {
            readAll();
            emitWatermarks();
        }

        /** A checkpoint that completes. */
        EnumeratorState<Unit> checkpoint(long checkpointId) {
            EnumeratorState<Unit> state = enumerator.snapshotState(checkpointId);
            enumerator.notifyCheckpointComplete(checkpointId);
            return state;
        }

        /** The readers told to read the splits restored from their state, in order. */
        List<Integer> releases() throws Exception {
            List<Integer> released = new ArrayList<>();
            context.getSentSourceEvent()
                    .forEach(
                            (reader, events) ->
                                    events.stream()
                                            .filter(e -> e instanceof SourceEvents.ReleaseSplits)
                                            .forEach(e -> released.add(reader)));
            return released;
        }

        /** Every split assignment so far, as {@code reader:unit@batch}. */
        List<String> assignments() {
            List<String> all = new ArrayList<>();
            for (SplitsAssignment<MicroBatchSplit<Unit>> a :
                    context.getSplitsAssignmentSequence()) {
                a.assignment()
                        .forEach(
                                (reader, splits) ->
                                        splits.forEach(s -> all.add(reader + ":" + s.work)));
            }
            return all;
        }

        /** The units assigned so far, by batch. */
        Map<Long, List<String>> batches() {
            Map<Long, List<String>> batches = new TreeMap<>();
            for (SplitsAssignment<MicroBatchSplit<Unit>> a :
                    context.getSplitsAssignmentSequence()) {
                for (List<MicroBatchSplit<Unit>> splits : a.assignment().values()) {
                    for (MicroBatchSplit<Unit> s : splits) {
                        batches.computeIfAbsent(s.work.batchId, b -> new ArrayList<>())
                                .add(s.work.name);
                    }
                }
            }
            batches.values().forEach(units -> units.sort(String::compareTo));
            return batches;
        }

        /** Hands the splits assigned since the last call to their readers. */
        private void deliver() {
            List<SplitsAssignment<MicroBatchSplit<Unit>>> all =
                    context.getSplitsAssignmentSequence();
            for (; delivered < all.size(); delivered++) {
                all.get(delivered)
                        .assignment()
                        .forEach(
                                (reader, splits) ->
                                        splits.forEach(s -> readers.get(reader).take(s.work)));
            }
        }

        /** A reader's side of the protocol, as {@link MicroBatchReader} follows it. */
        final class Reader {
            final int subtask;
            final Deque<Unit> queue = new ArrayDeque<>();
            final List<String> read = new ArrayList<>();
            BatchStats totals = BatchStats.empty();

            Reader(int subtask) {
                this.subtask = subtask;
            }

            private boolean reportedIdle;

            private void take(Unit split) {
                queue.add(split);
                reportedIdle = false;
            }

            void reportIdle() {
                reportedIdle = true;
                enumerator.handleSourceEvent(subtask, new SourceEvents.ReaderIdle(totals.copy()));
            }

            /** Reads the splits it was given; false if it had none. */
            boolean read() {
                deliver();
                if (queue.isEmpty()) {
                    return false;
                }
                while (!queue.isEmpty()) {
                    Unit unit = queue.poll();
                    for (long eventTime : rows.get(unit.name)) {
                        totals.add(unit.batchId, eventTime, false);
                        for (int n = 0; n < nodes.size(); n++) {
                            if (eventTime != Long.MIN_VALUE && nodes.get(n).test(unit.name)) {
                                totals.reach(n, eventTime);
                            }
                        }
                    }
                    read.add(unit.name);
                }
                return true;
            }

            void readAndReportIdle() {
                read();
                reportIdle();
            }

            /**
             * Reads what it was given, then reports idle once (until it is given more); false if it
             * did neither.
             */
            boolean poll() {
                boolean didRead = read();
                if (!reportedIdle) {
                    reportIdle();
                    return true;
                }
                return didRead;
            }

            /** Emits the last watermark it was told to, after its records, and says so. */
            void emitWatermark() throws Exception {
                List<SourceEvents.AdvanceWatermark> told = advances();
                SourceEvents.AdvanceWatermark last = told.get(told.size() - 1);
                if (totals.batchId <= last.batchId) {
                    totals = BatchStats.empty();
                }
                enumerator.handleSourceEvent(
                        subtask, new SourceEvents.WatermarkEmitted(last.batchId));
            }

            /** The watermarks it was told to emit, as {@code batch N: <Spark's watermark>}. */
            List<String> watermarks() throws Exception {
                return advances().stream()
                        .map(
                                w ->
                                        "batch "
                                                + w.batchId
                                                + ": "
                                                + (w.watermark == Long.MIN_VALUE
                                                        ? "none"
                                                        : Watermarks.format(w.watermark)))
                        .collect(Collectors.toList());
            }

            private List<SourceEvents.AdvanceWatermark> advances() throws Exception {
                List<SourceEvents.AdvanceWatermark> told = new ArrayList<>();
                for (SourceEvent e :
                        context.getSentSourceEvent().getOrDefault(subtask, List.of())) {
                    if (e instanceof SourceEvents.AdvanceWatermark w) {
                        told.add(w);
                    }
                }
                return told;
            }
        }
    }
}
