package org.flinkss.runtime.source.impl;

import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.connector.testutils.source.reader.TestingReaderContext;
import org.apache.flink.connector.testutils.source.reader.TestingReaderOutput;
import org.apache.flink.core.io.InputStatus;

import org.junit.jupiter.api.Test;

import org.flinkss.runtime.PermanentFailure;
import org.flinkss.runtime.source.RecordFormat;
import org.flinkss.runtime.source.SplitRecordReader;
import org.flinkss.runtime.source.WatermarkNode;
import org.flinkss.runtime.source.impl.ListPlanner.Unit;
import org.flinkss.runtime.time.Watermarks;

import javax.annotation.Nullable;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link MicroBatchReader} on Flink's {@link TestingReaderContext}, without a cluster: it reads the
 * splits the enumerator assigns, one after the other, each record with its event time as its
 * timestamp; it tells the enumerator when it has nothing left (with what it read of the batch), and
 * emits a batch's watermark only when the enumerator says so, after every record; its checkpoint
 * keeps the position in the split it reads, the splits queued and the batch's totals; a planned
 * file that is gone fails the run naming it, or is skipped and recorded with {@code
 * --skip-missing-files}.
 */
class MicroBatchReaderTest {

    /** 2025-03-01T00:00:00Z: the units' event times count minutes from it. */
    private static final long T0 = 1_740_787_200_000L;

    private static final long MINUTE = 60_000L;

    private final TestingReaderContext context = new TestingReaderContext();
    private final RecordingOutput output = new RecordingOutput();

    @Test
    void recordsKeepTheirEventTimeAndTheWatermarkComesAfterThemWhenTheEnumeratorSendsIt()
            throws Exception {
        // Step 1: batch 0 is two units; "views" is a withWatermark that only view rows reach.
        WatermarkNode<Reading> views =
                WatermarkNode.of("views", r -> r.unit().startsWith("view"), Duration.ofMinutes(10));
        Units units =
                new Units(
                        Map.of("view-a", minutes(1, 7), "buy-b", minutes(9), "buy-c", minutes(20)),
                        Set.of());
        MicroBatchReader<Reading, Unit> reader = reader(units, false, List.of(views));
        reader.addSplits(List.of(split("view-a", 0), split("buy-b", 0)));

        // Step 2: read until nothing is left: the records, each at its event time, then one
        // ReaderIdle with the batch's totals, and no watermark yet.
        assertThat(readAll(reader)).isEqualTo(InputStatus.NOTHING_AVAILABLE);
        assertThat(output.lines)
                .containsExactly("view-a#0 @" + at(1), "view-a#1 @" + at(7), "buy-b#0 @" + at(9));
        BatchStats idle = onlyIdle();
        assertThat(idle.batchId).isZero();
        assertThat(idle.rows).isEqualTo(3);
        assertThat(idle.minEventTime).isEqualTo(at(1));
        assertThat(idle.maxEventTime).isEqualTo(at(9));
        assertThat(idle.nodeMaxEventTime(0)).as("newest view row").isEqualTo(at(7));
        assertThat(reader.isAvailable()).isNotDone();

        // Step 3: the enumerator says batch 0 is read everywhere, with its (Spark's) watermark: it
        // is emitted as Flink's (one millisecond less), and acknowledged.
        output.lines.clear();
        context.clearSentEvents();
        long sparkWatermark = at(7) - 10 * MINUTE;
        reader.handleSourceEvents(new SourceEvents.AdvanceWatermark(0, sparkWatermark));
        assertThat(reader.isAvailable()).isDone();
        assertThat(reader.pollNext(output)).isEqualTo(InputStatus.MORE_AVAILABLE);
        assertThat(output.lines).containsExactly("watermark " + Watermarks.toFlink(sparkWatermark));
        assertThat(context.getSentEvents())
                .singleElement()
                .isInstanceOfSatisfying(
                        SourceEvents.WatermarkEmitted.class, e -> assertThat(e.batchId).isZero());

        // Step 4: batch 1's totals start from nothing: batch 0's went with its watermark.
        context.clearSentEvents();
        reader.addSplits(List.of(split("buy-c", 1)));
        readAll(reader);
        BatchStats next = onlyIdle();
        assertThat(next.batchId).isEqualTo(1);
        assertThat(next.rows).isEqualTo(1);
        assertThat(next.minEventTime).isEqualTo(at(20));
    }

    @Test
    void aWatermarkWithNoRowsYetIsAcknowledgedWithoutOne() throws Exception {
        MicroBatchReader<Reading, Unit> reader = reader(new Units(Map.of(), Set.of()), false);
        reader.handleSourceEvents(new SourceEvents.AdvanceWatermark(3, Watermarks.NONE));
        reader.pollNext(output);
        assertThat(output.lines).as("Spark's 'no watermark' emits none").isEmpty();
        assertThat(context.getSentEvents())
                .singleElement()
                .isInstanceOfSatisfying(
                        SourceEvents.WatermarkEmitted.class,
                        e -> assertThat(e.batchId).isEqualTo(3));
    }

    @Test
    void aCheckpointKeepsThePositionInTheSplitAndARestoredReaderGoesOnFromThere() throws Exception {
        // Step 1: a unit longer than one poll (2,048 records) and one queued behind it.
        Units units = new Units(Map.of("long", minuteRange(0, 3000), "next", minutes(5)), Set.of());
        MicroBatchReader<Reading, Unit> first = reader(units, false);
        first.addSplits(List.of(split("long", 4), split("next", 4)));
        assertThat(first.pollNext(output)).isEqualTo(InputStatus.MORE_AVAILABLE);
        assertThat(output.lines).hasSize(2048);

        // Step 2: the checkpoint: the split at its position, the queued split, the totals so far.
        List<MicroBatchSplit<Unit>> state = first.snapshotState(1);
        assertThat(state)
                .extracting(s -> s.work == null ? "stats of " + s.stats.rows : s.work.toString())
                .containsExactly("long@4", "next@4", "stats of 2048");
        assertThat(state.get(0).work.position()).isEqualTo(2048);
        first.close();

        // Step 3: a new reader restored from it emits the rest, once released, and reports the
        // batch's totals over both runs.
        output.lines.clear();
        MicroBatchReader<Reading, Unit> restored = restored(units, state);
        restored.handleSourceEvents(new SourceEvents.ReleaseSplits());
        readAll(restored);
        assertThat(output.lines).hasSize(3000 - 2048 + 1);
        assertThat(output.lines.get(0)).isEqualTo("long#2048 @" + at(2048));
        assertThat(output.lines.get(output.lines.size() - 1)).isEqualTo("next#0 @" + at(5));
        BatchStats idle = onlyIdle();
        assertThat(idle.batchId).isEqualTo(4);
        assertThat(idle.rows).isEqualTo(3001);
        assertThat(idle.maxEventTime).isEqualTo(at(2999));
    }

    @Test
    void aReaderRestoredInsideABatchHoldsItsSplitsButEmitsTheRestoredWatermarkUntilReleased()
            throws Exception {
        // Step 1: a reader restored from a checkpoint taken inside batch 4, with a split unread.
        Units units = new Units(Map.of("late", minutes(1, 2)), Set.of());
        MicroBatchReader<Reading, Unit> reader = restored(units, List.of(split("late", 4)));

        // Step 2: it reads nothing, and asks for nothing: its rows could otherwise reach a window
        // before the restored watermark, which Flink keeps in no checkpoint.
        assertThat(reader.pollNext(output)).isEqualTo(InputStatus.NOTHING_AVAILABLE);
        assertThat(output.lines).isEmpty();
        assertThat(context.getSentEvents()).isEmpty();
        assertThat(reader.isAvailable()).isNotDone();

        // Step 3: the restored watermark (the one batch 3 ended with) is emitted and acknowledged
        // while the split is held.
        reader.handleSourceEvents(new SourceEvents.AdvanceWatermark(3, at(0)));
        assertThat(reader.isAvailable()).isDone();
        assertThat(readAll(reader)).isEqualTo(InputStatus.NOTHING_AVAILABLE);
        assertThat(output.lines).containsExactly("watermark " + Watermarks.toFlink(at(0)));
        assertThat(context.getSentEvents())
                .singleElement()
                .isInstanceOfSatisfying(
                        SourceEvents.WatermarkEmitted.class,
                        e -> assertThat(e.batchId).isEqualTo(3));

        // Step 4: released, it reads the split, after the watermark, and reports the batch.
        context.clearSentEvents();
        reader.handleSourceEvents(new SourceEvents.ReleaseSplits());
        assertThat(reader.isAvailable()).isDone();
        readAll(reader);
        assertThat(output.lines)
                .containsExactly(
                        "watermark " + Watermarks.toFlink(at(0)),
                        "late#0 @" + at(1),
                        "late#1 @" + at(2));
        assertThat(onlyIdle().batchId).isEqualTo(4);
    }

    @Test
    void aReaderGivenSplitsAfterItStartedReadsThemAtOnceAndIgnoresARelease() throws Exception {
        Units units = new Units(Map.of("a", minutes(1)), Set.of());
        MicroBatchReader<Reading, Unit> reader = reader(units, false);
        reader.handleSourceEvents(new SourceEvents.ReleaseSplits());
        reader.addSplits(List.of(split("a", 0)));
        readAll(reader);
        assertThat(output.lines).containsExactly("a#0 @" + at(1));
    }

    @Test
    void aPlannedFileThatIsGoneFailsTheRunNamingItsBatchAndTheWaysOut() throws Exception {
        MicroBatchReader<Reading, Unit> reader = reader(new Units(Map.of(), Set.of()), false);
        reader.addSplits(List.of(split("gone", 2)));
        assertThatThrownBy(() -> reader.pollNext(output))
                .isInstanceOf(IOException.class)
                .hasMessage(
                        "source 'units': unit gone was planned in batch 2 but is gone before it"
                                + " was read. Either put it back and run the query again (batch 2"
                                + " is read again from the last checkpoint), or run it again with"
                                + " --skip-missing-files, which skips the files that are gone and"
                                + " records each one (in the batch's progress and in the query's"
                                + " *_skipped_files table).")
                .hasCauseInstanceOf(NoSuchFileException.class);
    }

    @Test
    void withSkipMissingFilesAGoneFileIsSkippedAndRecordedAndTheRestRead() throws Exception {
        Units units = new Units(Map.of("here", minutes(1)), Set.of());
        MicroBatchReader<Reading, Unit> reader = reader(units, true);
        reader.addSplits(List.of(split("gone", 2), split("here", 2)));
        readAll(reader);
        assertThat(output.lines)
                .containsExactly(
                        "skipped unit gone: gone before it was read (--skip-missing-files)",
                        "here#0 @" + at(1));
        BatchStats idle = onlyIdle();
        assertThat(idle.skipped).containsExactly("unit gone");
        assertThat(idle.rows).as("a skip is not input").isEqualTo(1);
    }

    @Test
    void aFileThatMayNotBeReadFailsAtOnceWithNoRestart() throws Exception {
        MicroBatchReader<Reading, Unit> reader =
                reader(new Units(Map.of(), Set.of("secret")), true);
        reader.addSplits(List.of(split("secret", 0)));
        assertThatThrownBy(() -> reader.pollNext(output))
                .isInstanceOf(PermanentFailure.class)
                .hasMessageStartingWith(
                        "source 'units': unit secret cannot be read: permission denied, which no"
                                + " restart can fix.");
    }

    private MicroBatchReader<Reading, Unit> reader(Units units, boolean skipMissingFiles) {
        return reader(units, skipMissingFiles, List.of());
    }

    /** A started reader: the splits it is given are assigned ones. */
    private MicroBatchReader<Reading, Unit> reader(
            Units units, boolean skipMissingFiles, List<WatermarkNode<Reading>> nodes) {
        MicroBatchReader<Reading, Unit> reader =
                new MicroBatchReader<>(context, units, "units", skipMissingFiles, nodes);
        reader.start();
        return reader;
    }

    /** A reader as Flink restores one: the splits of its state first, then {@code start}. */
    private MicroBatchReader<Reading, Unit> restored(
            Units units, List<MicroBatchSplit<Unit>> state) {
        MicroBatchReader<Reading, Unit> reader =
                new MicroBatchReader<>(context, units, "units", false, List.of());
        reader.addSplits(state);
        reader.start();
        return reader;
    }

    /** Polls until the reader has nothing left (it then waits for splits or a watermark). */
    private InputStatus readAll(MicroBatchReader<Reading, Unit> reader) throws Exception {
        for (int polls = 0; polls < 1000; polls++) {
            InputStatus status = reader.pollNext(output);
            if (status != InputStatus.MORE_AVAILABLE) {
                return status;
            }
        }
        throw new AssertionError("the reader never ran out of records");
    }

    /** The one event sent to the enumerator, a ReaderIdle: the totals it carries. */
    private BatchStats onlyIdle() {
        List<SourceEvent> sent = context.getSentEvents();
        assertThat(sent).singleElement().isInstanceOf(SourceEvents.ReaderIdle.class);
        return ((SourceEvents.ReaderIdle) sent.get(0)).stats;
    }

    /** A split of unit {@code name} in batch {@code batchId}, as the enumerator assigns it. */
    private static MicroBatchSplit<Unit> split(String name, long batchId) {
        return MicroBatchSplit.of(new Unit(name, batchId, 0));
    }

    private static long at(long minute) {
        return T0 + minute * MINUTE;
    }

    /** Event times at the given minutes. */
    private static List<Long> minutes(long... minutes) {
        return LongStream.of(minutes).map(MicroBatchReaderTest::at).boxed().toList();
    }

    /** Event times at minutes {@code from} to {@code to - 1}, one record a minute. */
    private static List<Long> minuteRange(long from, long to) {
        return LongStream.range(from, to).map(MicroBatchReaderTest::at).boxed().toList();
    }

    /** A record: its unit and index there, and its event time. */
    record Reading(String unit, long index, long eventTime) {}

    /**
     * Units of work whose records are event times; a unit not listed is gone (its file deleted
     * after planning), and a denied one may not be read.
     */
    record Units(Map<String, List<Long>> times, Set<String> denied)
            implements RecordFormat<Reading, Unit> {

        @Override
        public SplitRecordReader<Reading> open(Unit split) throws IOException {
            if (denied.contains(split.name)) {
                throw new AccessDeniedException(split.name);
            }
            List<Long> records = times.get(split.name);
            if (records == null) {
                throw new NoSuchFileException(split.name);
            }
            return new SplitRecordReader<>() {
                private long position = split.position();

                @Nullable
                @Override
                public Reading next() {
                    if (position >= records.size()) {
                        return null;
                    }
                    long index = position++;
                    return new Reading(split.name, index, records.get((int) index));
                }

                @Override
                public long position() {
                    return position;
                }

                @Override
                public void close() {}
            };
        }

        @Override
        public long eventTime(Reading record) {
            return record.eventTime();
        }

        @Override
        public boolean skipsMissingFiles() {
            return true;
        }

        @Override
        public Reading skipped(Unit split, String reason) {
            return new Reading("skipped " + split.describe() + ": " + reason, -1, Long.MIN_VALUE);
        }

        @Override
        public TypeInformation<Reading> producedType() {
            return TypeInformation.of(Reading.class);
        }
    }

    /** What the reader emits, in order, as lines: records with their timestamps, watermarks. */
    private static final class RecordingOutput extends TestingReaderOutput<Reading> {
        final List<String> lines = new ArrayList<>();

        @Override
        public void collect(Reading record) {
            lines.add(record.index() < 0 ? record.unit() : record.unit() + "#" + record.index());
        }

        @Override
        public void collect(Reading record, long timestamp) {
            lines.add(record.unit() + "#" + record.index() + " @" + timestamp);
        }

        @Override
        public void emitWatermark(Watermark watermark) {
            lines.add("watermark " + watermark.getTimestamp());
        }
    }
}
