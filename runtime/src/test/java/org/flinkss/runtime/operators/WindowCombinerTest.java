package org.flinkss.runtime.operators;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.assigners.SlidingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.WindowAssigner;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
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
import org.flinkss.runtime.time.Watermarks;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.flinkss.runtime.operators.Harness.at;
import static org.flinkss.runtime.operators.Harness.hhmm;
import static org.flinkss.runtime.operators.Harness.push;
import static org.flinkss.runtime.operators.Harness.watermark;

/**
 * {@link WindowCombiner} in Flink's operator harness: rows pushed one by one, and what it sends
 * (partials, then the watermark) at each watermark, checkpoint barrier, end of input and bound;
 * then its partials merged by {@link WindowAggregate.Spec#overPartials} against the row-by-row
 * operator.
 */
class WindowCombinerTest {

    private static final Duration FIVE_MINUTES = Duration.ofMinutes(5);

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

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (var harness : open) {
            harness.close();
        }
    }

    @Test
    void itSendsOnePartialPerKeyAndWindowBeforeTheWatermark() throws Exception {
        var h = combiner(TumblingEventTimeWindows.of(FIVE_MINUTES), WindowEmission.FINAL, 100);

        push(h, "a", "00:01", 1);
        push(h, "a", "00:03", 2);
        push(h, "a", "00:06", 4);
        push(h, "b", "00:02", 8);
        assertThat(sent(h)).as("held until the watermark").isEmpty();
        assertThat(h.getOneInputOperator()).isInstanceOf(WindowCombiner.class);
        assertThat(((WindowCombiner<?, ?, ?>) h.getOneInputOperator()).held()).isEqualTo(3);

        watermark(h, "00:05");
        List<String> sent = sent(h);
        assertThat(sent.subList(0, sent.size() - 1))
                .as("every partial")
                .containsExactlyInAnyOrder(
                        "a [00:00-00:05) rows=2 sum=3",
                        "a [00:05-00:10) rows=1 sum=4",
                        "b [00:00-00:05) rows=1 sum=8");
        assertThat(sent).as("then the watermark").endsWith("watermark 00:05");

        watermark(h, "00:06");
        assertThat(sent(h))
                .as("nothing held, only the watermark")
                .containsExactly("watermark 00:06");
    }

    @Test
    void rowsWithoutAKeyAreOneGroupOfTheirOwn() throws Exception {
        // Spark's groupBy makes null a group: the combiner keeps it apart from every other key.
        var h = combiner(TumblingEventTimeWindows.of(FIVE_MINUTES), WindowEmission.FINAL, 100);

        push(h, null, "00:01", 1);
        push(h, "a", "00:02", 2);
        push(h, null, "00:03", 4);
        push(h, null, "00:07", 8);
        push(h, "a", "00:04", 16);

        watermark(h, "00:10");
        assertThat(sent(h))
                .containsExactlyInAnyOrder(
                        "null [00:00-00:05) rows=2 sum=5",
                        "null [00:05-00:10) rows=1 sum=8",
                        "a [00:00-00:05) rows=2 sum=18",
                        "watermark 00:10");
    }

    @Test
    void itSendsWhatItHoldsBeforeACheckpointBarrierAndCheckpointsNothing() throws Exception {
        var h = combiner(TumblingEventTimeWindows.of(FIVE_MINUTES), WindowEmission.FINAL, 100);
        push(h, "a", "00:01", 1);
        push(h, "a", "00:02", 2);

        h.prepareSnapshotPreBarrier(1);
        assertThat(sent(h)).containsExactly("a [00:00-00:05) rows=2 sum=3");
        OperatorSubtaskState snapshot = h.snapshot(1, 0);
        assertThat(snapshot.getManagedOperatorState()).isEmpty();
        assertThat(snapshot.getManagedKeyedState()).isEmpty();

        push(h, "a", "00:03", 4);
        h.prepareSnapshotPreBarrier(2);
        assertThat(sent(h))
                .as("a new partial after the checkpoint")
                .containsExactly("a [00:00-00:05) rows=1 sum=4");
    }

    @Test
    void itSendsWhatItHoldsAtTheEndOfTheInput() throws Exception {
        var h = combiner(TumblingEventTimeWindows.of(FIVE_MINUTES), WindowEmission.FINAL, 100);
        push(h, "a", "00:01", 1);
        push(h, "b", "00:07", 2);

        h.endInput();
        assertThat(sent(h))
                .containsExactlyInAnyOrder(
                        "a [00:00-00:05) rows=1 sum=1", "b [00:05-00:10) rows=1 sum=2");
    }

    @Test
    void itSendsEverythingItHoldsWhenItReachesItsBound() throws Exception {
        var h = combiner(TumblingEventTimeWindows.of(FIVE_MINUTES), WindowEmission.FINAL, 2);
        push(h, "a", "00:01", 1);
        push(h, "a", "00:02", 2);
        assertThat(sent(h)).as("one partial held").isEmpty();

        push(h, "b", "00:01", 4);
        assertThat(sent(h))
                .as("the second partial reaches the bound of 2")
                .containsExactlyInAnyOrder(
                        "a [00:00-00:05) rows=2 sum=3", "b [00:00-00:05) rows=1 sum=4");

        push(h, "a", "00:03", 8);
        watermark(h, "00:01");
        assertThat(sent(h))
                .as("a second partial of the same window, merged downstream")
                .containsExactly("a [00:00-00:05) rows=1 sum=8", "watermark 00:01");
    }

    @Test
    void aRowIsNeverCombinedIntoAWindowThatHasEndedByTheWatermark() throws Exception {
        var h =
                combiner(
                        SlidingEventTimeWindows.of(Duration.ofMinutes(10), FIVE_MINUTES),
                        WindowEmission.FINAL,
                        100);
        watermark(h, "01:10");
        sent(h);

        // Spark drops the row from [01:00-01:10), which has ended, and keeps it in the other.
        push(h, "a", "01:07", 2);
        // Late for both its windows: the router before drops such a row; were one to pass, no
        // window would take it.
        push(h, "a", "01:04", 1);
        watermark(h, "01:15");
        assertThat(sent(h)).containsExactly("a [01:05-01:15) rows=1 sum=2", "watermark 01:15");
    }

    @Test
    void inCompleteModeEveryWindowTakesTheRow() throws Exception {
        var h = combiner(TumblingEventTimeWindows.of(FIVE_MINUTES), WindowEmission.ALL, 100);
        watermark(h, "00:10");
        sent(h);

        push(h, "a", "00:01", 1);
        h.endInput();
        assertThat(sent(h)).containsExactly("a [00:00-00:05) rows=1 sum=1");
    }

    @Test
    void sessionsAreRefused() {
        assertThatThrownBy(
                        () ->
                                new WindowCombiner<String, Reading, Tally>(
                                        EventTimeSessionWindows.withGap(FIVE_MINUTES),
                                        r -> r.key,
                                        new Tally.Function(),
                                        WindowEmission.FINAL,
                                        100))
                .hasMessageContaining("sessions merge");
    }

    @Test
    void partialsMergedGiveTheRowByRowOperatorsWindowsOutputAndStateMetrics() throws Exception {
        // Two subtasks' combiners (one with a bound of 1, so a window arrives in pieces) into one
        // keyed operator, against every row into the row-by-row operator.
        var assigner = SlidingEventTimeWindows.of(Duration.ofMinutes(10), FIVE_MINUTES);
        var left = combiner(assigner, WindowEmission.FINAL, 1);
        var right = combiner(assigner, WindowEmission.FINAL, 100);
        var merged = partialsOperator(assigner, null);
        var rows = rowsOperator(assigner, null);
        String[][] input = {
            {"a", "00:01", "1"},
            {"a", "00:03", "2"},
            {"b", "00:04", "4"},
            {"a", "00:06", "8"},
            {"b", "00:09", "16"},
            {"a", "00:12", "32"}
        };
        for (int i = 0; i < input.length; i++) {
            var row = new Reading(input[i][0], at(input[i][1]), Long.parseLong(input[i][2]));
            (i % 2 == 0 ? left : right).processElement(row, row.time);
            rows.processElement(row, row.time);
        }
        for (var c : List.of(left, right)) {
            c.prepareSnapshotPreBarrier(1);
            for (var partial : partials(c)) {
                merged.processElement(partial.getValue(), partial.getTimestamp());
            }
        }
        assertThat(windows(merged)).isEqualTo(windows(rows)).hasSize(7);
        merged.snapshot(1, 0);
        rows.snapshot(1, 0);
        assertThat(stateRows("merged", 1)).isEqualTo(stateRows("rows", 1));

        merged.processWatermark(Watermarks.toFlink(at("00:10")));
        rows.processWatermark(Watermarks.toFlink(at("00:10")));
        List<String> written = output(merged);
        assertThat(written).containsExactlyInAnyOrderElementsOf(output(rows));
        assertThat(written)
                .containsExactlyInAnyOrder(
                        "a [23:55-00:05) rows=2 sum=3",
                        "b [23:55-00:05) rows=1 sum=4",
                        "a [00:00-00:10) rows=3 sum=11",
                        "b [00:00-00:10) rows=2 sum=20");
    }

    @Test
    void aCheckpointOfTheRowByRowOperatorRestoresIntoTheMergingOne() throws Exception {
        // Same uid, same state: a checkpoint taken before the combiner existed goes on.
        var assigner = TumblingEventTimeWindows.of(FIVE_MINUTES);
        var rows = rowsOperator(assigner, null);
        var row = new Reading("a", at("00:01"), 1);
        rows.processElement(row, row.time);
        rows.processWatermark(Watermarks.toFlink(at("00:00:30")));
        OperatorSubtaskState snapshot = rows.snapshot(1, 0);

        var merged = partialsOperator(assigner, snapshot);
        var combiner = combiner(assigner, WindowEmission.FINAL, 100);
        var later = new Reading("a", at("00:02"), 2);
        // Late rows (by the restored watermark) never reach the combiner: the router drops them.
        combiner.processElement(later, later.time);
        combiner.endInput();
        for (var partial : partials(combiner)) {
            merged.processElement(partial.getValue(), partial.getTimestamp());
        }
        assertThat(windows(merged)).containsExactly("a [00:00-00:05) 2");
        merged.processWatermark(Watermarks.toFlink(at("00:05")));
        assertThat(output(merged)).containsExactly("a [00:00-00:05) rows=2 sum=3");
    }

    private OneInputStreamOperatorTestHarness<Reading, WindowPartial<String, Tally>> combiner(
            WindowAssigner<?, TimeWindow> assigner, WindowEmission emission, int maxEntries)
            throws Exception {
        var h =
                new OneInputStreamOperatorTestHarness<Reading, WindowPartial<String, Tally>>(
                        new WindowCombiner<String, Reading, Tally>(
                                assigner, r -> r.key, new Tally.Function(), emission, maxEntries));
        open.add(h);
        h.open();
        return h;
    }

    private RunScope scope(String query) {
        return new RunScope(CheckpointLayout.of(Storage.location(base.toFile()), query), "run-1");
    }

    private WindowAggregate.Spec<String, Reading, Tally> spec(
            WindowAssigner<?, TimeWindow> assigner, String query) {
        return new WindowAggregate.Spec<>(
                "window",
                assigner,
                new Tally.Function(),
                Tally.class,
                EMITTER,
                WindowEmission.FINAL,
                scope(query));
    }

    private KeyedOneInputStreamOperatorTestHarness<String, WindowPartial<String, Tally>, RowData>
            partialsOperator(WindowAssigner<?, TimeWindow> assigner, OperatorSubtaskState restored)
                    throws Exception {
        var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new WindowAggregate.Operator<>(spec(assigner, "merged").overPartials()),
                        (WindowPartial<String, Tally> p) -> p.key,
                        Types.STRING);
        return start(h, restored);
    }

    private KeyedOneInputStreamOperatorTestHarness<String, Reading, RowData> rowsOperator(
            WindowAssigner<?, TimeWindow> assigner, OperatorSubtaskState restored)
            throws Exception {
        var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new WindowAggregate.Operator<>(spec(assigner, "rows").overRows()),
                        (Reading r) -> r.key,
                        Types.STRING);
        return start(h, restored);
    }

    private <T extends KeyedOneInputStreamOperatorTestHarness<String, ?, RowData>> T start(
            T h, OperatorSubtaskState restored) throws Exception {
        open.add(h);
        h.setup(ROWS);
        if (restored != null) {
            h.initializeState(restored);
        }
        h.open();
        return h;
    }

    @SuppressWarnings("unchecked")
    private static List<StreamRecord<WindowPartial<String, Tally>>> partials(
            OneInputStreamOperatorTestHarness<Reading, WindowPartial<String, Tally>> h) {
        List<StreamRecord<WindowPartial<String, Tally>>> records = new ArrayList<>();
        for (Object o : h.getOutput()) {
            if (o instanceof StreamRecord<?> r) {
                records.add((StreamRecord<WindowPartial<String, Tally>>) r);
            }
        }
        h.getOutput().clear();
        return records;
    }

    /** What the combiner sent since the last call: partials and watermarks, in order. */
    private static List<String> sent(
            OneInputStreamOperatorTestHarness<Reading, WindowPartial<String, Tally>> h) {
        List<String> sent = new ArrayList<>();
        for (Object o : h.getOutput()) {
            if (o instanceof Watermark w) {
                sent.add("watermark " + hhmm(Watermarks.fromFlink(w.getTimestamp())));
            } else if (o instanceof StreamRecord<?> r) {
                @SuppressWarnings("unchecked")
                var p = (WindowPartial<String, Tally>) r.getValue();
                assertThat(r.getTimestamp())
                        .as("inside its window")
                        .isEqualTo(p.accumulator.end - 1);
                sent.add(
                        p.key
                                + " ["
                                + hhmm(p.start)
                                + "-"
                                + hhmm(p.accumulator.end)
                                + ") rows="
                                + p.accumulator.rows
                                + " sum="
                                + p.accumulator.sum);
            }
        }
        h.getOutput().clear();
        return sent;
    }

    private static List<String> output(
            KeyedOneInputStreamOperatorTestHarness<String, ?, RowData> h) {
        List<String> rows =
                h.extractOutputValues().stream()
                        .map(
                                r ->
                                        r.getString(0)
                                                + " ["
                                                + hhmm(r.getLong(1) / 1000)
                                                + "-"
                                                + hhmm(r.getLong(2) / 1000)
                                                + ") rows="
                                                + r.getLong(3)
                                                + " sum="
                                                + r.getLong(4))
                        .collect(Collectors.toList());
        h.getOutput().clear();
        return rows;
    }

    /** The windows in the keyed state, as {@code key [start-end) rows}. */
    private static List<String> windows(
            KeyedOneInputStreamOperatorTestHarness<String, ?, RowData> h) throws Exception {
        return Harness.windows(h, Harness::hhmm);
    }

    /** numRowsTotal and numRowsUpdated of the checkpoint, as progress reports them. */
    private String stateRows(String query, long checkpointId) {
        return Fragments.read(scope(query).fragments(checkpointId)).stream()
                .filter(f -> f instanceof Fragment.StateRows)
                .map(Object::toString)
                .findFirst()
                .orElseThrow();
    }
}
