package org.flinkss.runtime.operators;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;

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
import static org.flinkss.runtime.operators.Harness.at;
import static org.flinkss.runtime.operators.Harness.watermark;

/**
 * {@link LateRowRouter} in Flink's operator harness: which rows go on to the stateful operator and
 * which to the late-row side output (with the watermark they missed and why), by Spark's rule of
 * that operator, and the count of dropped rows that a snapshot reports.
 */
class LateRowRouterTest {

    private static final long FIVE_MINUTES = Duration.ofMinutes(5).toMillis();

    @TempDir Path base;

    private final List<OneInputStreamOperatorTestHarness<Reading, Reading>> open =
            new ArrayList<>();

    private RunScope scope() {
        return new RunScope(CheckpointLayout.of(Storage.location(base.toFile()), "late"), "run-1");
    }

    @AfterEach
    void close() throws Exception {
        for (var harness : open) {
            harness.close();
        }
    }

    @Test
    void aRowExactlyAtTheWatermarkIsLateAndOneAMillisecondNewerIsNot() throws Exception {
        LateRowRouter<Reading> router = router("dedupe", LateRowRouter.rowRule());
        var h = harness(router);

        push(h, "00:00");
        assertThat(onTime(h))
                .as("no watermark yet: Spark's is the epoch, long before")
                .containsExactly("a@00:00:00=0");

        watermark(h, "00:10");
        push(h, "00:10");
        push(h, "00:10:00.001");
        assertThat(onTime(h)).containsExactly("a@00:10:00.001=0");
        assertThat(late(h, router))
                .containsExactly(
                        "a@00:10:00=0 missed 2025-03-01T00:10:00.000Z: older than the watermark"
                                + " 2025-03-01T00:10:00.000Z");
    }

    @Test
    void aRowOneMicrosecondAfterTheWatermarkIsOnTimeAndOneAtItIsLate() throws Exception {
        // Issue 13 point 6: Spark compares event_time (us) <= watermark (ms) * 1000.
        LateRowRouter<Reading> router = router("dedupe", LateRowRouter.rowRule());
        var h = harness(router);

        watermark(h, "00:10");
        push(h, "00:10", 0);
        push(h, "00:10", 1);
        push(h, "00:09:59.999", 999);
        assertThat(onTime(h)).containsExactly("a@00:10:00=1");
        assertThat(late(h, router))
                .hasSize(2)
                .anyMatch(r -> r.startsWith("a@00:10:00=0 "))
                .anyMatch(r -> r.startsWith("a@00:09:59.999=999 "));
    }

    @Test
    void windowAndSessionEdgesAreMicroseconds() throws Exception {
        LateRowRouter<Reading> window =
                router("window", LateRowRouter.windowRule(FIVE_MINUTES, FIVE_MINUTES));
        var w = harness(window);
        watermark(w, "00:05");
        push(w, "00:04:59.999", 999); // the last microsecond of [00:00, 00:05): ended
        push(w, "00:05", 0); // the first of [00:05, 00:10): open
        assertThat(onTime(w)).containsExactly("a@00:05:00=0");
        assertThat(late(w, window)).hasSize(1).allMatch(r -> r.startsWith("a@00:04:59.999=999"));

        LateRowRouter<Reading> session =
                router("window", LateRowRouter.sessionRule(Duration.ofMinutes(2).toMillis()));
        var s = harness(session);
        watermark(s, "00:10");
        push(s, "00:08", 0); // [00:08, 00:10) has ended at the watermark
        push(s, "00:08", 1); // [00:08:00.000001, 00:10:00.000001) has not
        assertThat(onTime(s)).containsExactly("a@00:08:00=1");
        assertThat(late(s, session)).hasSize(1).allMatch(r -> r.startsWith("a@00:08:00=0"));
    }

    @Test
    void aRowIsLateForATumblingWindowWhenItsWindowHasEnded() throws Exception {
        LateRowRouter<Reading> router =
                router("window", LateRowRouter.windowRule(FIVE_MINUTES, FIVE_MINUTES));
        var h = harness(router);

        watermark(h, "00:05");
        push(h, "00:04:59.999");
        push(h, "00:05");

        assertThat(onTime(h)).containsExactly("a@00:05:00=0");
        assertThat(late(h, router)).hasSize(1).allMatch(r -> r.startsWith("a@00:04:59.999=0"));
    }

    @Test
    void aRowIsDroppedOnlyFromItsSlidingWindowsThatHaveEnded() throws Exception {
        LateRowRouter<Reading> router =
                router("window", LateRowRouter.windowRule(2 * FIVE_MINUTES, FIVE_MINUTES));
        var h = harness(router);
        assertThat(LateRowRouter.firstWindowEnd(at("00:07"), 2 * FIVE_MINUTES, FIVE_MINUTES))
                .isEqualTo(at("00:10"));
        assertThat(LateRowRouter.lastWindowEnd(at("00:07"), 2 * FIVE_MINUTES, FIVE_MINUTES))
                .isEqualTo(at("00:15"));

        watermark(h, "00:10");
        push(h, "00:07");
        push(h, "00:04:59.999");
        push(h, "00:10");

        // Issue 13 point 2: Spark drops 00:07 only from [00:00, 00:10) and still counts it in the
        // open [00:05, 00:15): it goes on, and is recorded as dropped from one window. 00:04:59.999
        // has ended both of its windows: dropped.
        assertThat(onTime(h)).containsExactly("a@00:07:00=0", "a@00:10:00=0");
        assertThat(late(h, router))
                .containsExactly(
                        "a@00:07:00=0 missed 2025-03-01T00:10:00.000Z: dropped from 1 of its"
                                + " windows, those that ended by the watermark"
                                + " 2025-03-01T00:10:00.000Z; kept in the others",
                        "a@00:04:59.999=0 missed 2025-03-01T00:10:00.000Z: older than the"
                                + " watermark 2025-03-01T00:10:00.000Z");
        // Counted per window dropped from, as Spark drops per (row, window).
        h.snapshot(1, 0);
        assertThat(Fragments.read(scope().fragments(1)))
                .containsExactly(new Fragment.DroppedRows("window", 0, 3));
    }

    @Test
    void aRowIsLateForSessionsWhenTheSessionItAloneWouldMakeHasEnded() throws Exception {
        LateRowRouter<Reading> router =
                router("window", LateRowRouter.sessionRule(Duration.ofMinutes(2).toMillis()));
        var h = harness(router);

        watermark(h, "00:10");
        push(h, "00:08");
        push(h, "00:08:00.001");

        assertThat(late(h, router)).hasSize(1).allMatch(r -> r.startsWith("a@00:08:00=0"));
        assertThat(onTime(h)).containsExactly("a@00:08:00.001=0");
    }

    @Test
    void aRowWithoutEventTimeGoesToTheLateRowsSaySo() throws Exception {
        LateRowRouter<Reading> router = router("dedupe", LateRowRouter.rowRule());
        var h = harness(router);

        h.processElement(new StreamRecord<>(new Reading("a", null, 0)));
        watermark(h, "00:10");
        h.processElement(new StreamRecord<>(new Reading("b", null, 0)));

        assertThat(onTime(h)).isEmpty();
        assertThat(late(h, router))
                .containsExactly(
                        "a@none=0 missed 1970-01-01T00:00:00.000Z: no event time",
                        "b@none=0 missed 2025-03-01T00:10:00.000Z: no event time");
    }

    /**
     * Issue 37 point 2: before any watermark, Spark's is the epoch (its first batch runs with
     * {@code batchWatermarkMs = 0}): a row at or before 1970-01-01T00:00:00Z is late for dedup and
     * joins, one a microsecond after it is not.
     */
    @Test
    void beforeAnyWatermarkARowAtOrBeforeTheEpochIsLate() throws Exception {
        LateRowRouter<Reading> router = router("dedupe", LateRowRouter.rowRule());
        var h = harness(router);

        h.processElement(new Reading("a", -60_000L, 0), -60_000L);
        h.processElement(new Reading("b", 0L, 0), 0L);
        h.processElement(new Reading("c", 0L, 1), 0L);
        h.processElement(new Reading("d", 1L, 0), 1L);

        assertThat(onTime(h)).containsExactly("c@00:00:00=1", "d@00:00:00.001=0");
        assertThat(late(h, router))
                .containsExactly(
                        "a@23:59:00=0 missed 1970-01-01T00:00:00.000Z: older than the watermark"
                                + " 1970-01-01T00:00:00.000Z",
                        "b@00:00:00=0 missed 1970-01-01T00:00:00.000Z: older than the watermark"
                                + " 1970-01-01T00:00:00.000Z");
    }

    /**
     * Issue 37 point 2, windows: before any watermark, a window ending at or before the epoch has
     * ended; a row keeps its windows that end after it (a sliding window's later one).
     */
    @Test
    void beforeAnyWatermarkAWindowEndingAtOrBeforeTheEpochHasEnded() throws Exception {
        LateRowRouter<Reading> router =
                router("window", LateRowRouter.windowRule(2 * FIVE_MINUTES, FIVE_MINUTES));
        var h = harness(router);

        // [-10 min, 0) and [-5 min, 5 min) hold -1 min; [-15 min, -5 min) and [-10 min, 0) hold
        // -6 min: the first is kept in one window, the second in none.
        h.processElement(new Reading("a", -60_000L, 0), -60_000L);
        h.processElement(new Reading("b", -360_000L, 0), -360_000L);

        assertThat(onTime(h)).containsExactly("a@23:59:00=0");
        assertThat(late(h, router))
                .containsExactly(
                        "a@23:59:00=0 missed 1970-01-01T00:00:00.000Z: dropped from 1 of its"
                                + " windows, those that ended by the watermark"
                                + " 1970-01-01T00:00:00.000Z; kept in the others",
                        "b@23:54:00=0 missed 1970-01-01T00:00:00.000Z: older than the watermark"
                                + " 1970-01-01T00:00:00.000Z");
        h.snapshot(1, 0);
        assertThat(Fragments.read(scope().fragments(1)))
                .containsExactly(new Fragment.DroppedRows("window", 0, 3));
    }

    @Test
    void aRowWithoutEventTimePassesARouterThatKeepsThem() throws Exception {
        // Spark's dropDuplicatesWithinWatermark: null <= watermark is never true, the row stays.
        LateRowRouter<Reading> router =
                router("dedupe", LateRowRouter.rowRule()).keepingRowsWithoutEventTime();
        var h = harness(router);

        watermark(h, "00:10");
        h.processElement(new StreamRecord<>(new Reading("a", null, 0)));
        push(h, "00:09");

        assertThat(onTime(h)).containsExactly("a@none=0");
        assertThat(late(h, router)).hasSize(1).allMatch(r -> r.startsWith("a@00:09:00=0"));
    }

    @Test
    void aSnapshotReportsTheRowsDroppedSinceTheLastOne() throws Exception {
        LateRowRouter<Reading> router = router("window", LateRowRouter.rowRule());
        var h = harness(router);
        watermark(h, "00:10");
        push(h, "00:01");
        push(h, "00:02");
        push(h, "00:11");

        h.snapshot(3, 0);
        assertThat(Fragments.read(scope().fragments(3)))
                .containsExactly(new Fragment.DroppedRows("window", 0, 2));

        push(h, "00:12");
        h.snapshot(4, 0);
        assertThat(Storage.localFile(scope().fragments(4), "a test file").toPath())
                .as("nothing dropped, nothing to say")
                .doesNotExist();
    }

    // ---------------------------------------------------------------------------------------

    private LateRowRouter<Reading> router(String operator, LateRowRouter.Rule rule) {
        // A reading's time is whole ms; its value, in these tests, the microseconds past it.
        return new LateRowRouter<>(
                operator,
                rule,
                r -> r.time == null ? null : r.time * 1000 + r.value,
                TypeInformation.of(Reading.class),
                scope());
    }

    private OneInputStreamOperatorTestHarness<Reading, Reading> harness(
            LateRowRouter<Reading> router) throws Exception {
        var h = new OneInputStreamOperatorTestHarness<>(new ProcessOperator<>(router));
        open.add(h);
        h.open();
        return h;
    }

    private static void push(OneInputStreamOperatorTestHarness<Reading, Reading> h, String time)
            throws Exception {
        push(h, time, 0);
    }

    /** A reading at {@code time} plus {@code micros} microseconds (kept in its value). */
    private static void push(
            OneInputStreamOperatorTestHarness<Reading, Reading> h, String time, long micros)
            throws Exception {
        h.processElement(new Reading("a", at(time), micros), at(time));
    }

    private static List<String> onTime(OneInputStreamOperatorTestHarness<Reading, Reading> h) {
        List<String> rows =
                h.extractOutputValues().stream()
                        .map(Reading::toString)
                        .collect(Collectors.toList());
        h.getOutput().clear();
        return rows;
    }

    /** The late rows, as {@code row missed <watermark>: <reason>}. */
    private static List<String> late(
            OneInputStreamOperatorTestHarness<Reading, Reading> h, LateRowRouter<Reading> router) {
        List<String> rows = new ArrayList<>();
        for (StreamRecord<LateRow<Reading>> r : h.getSideOutput(router.lateRows())) {
            LateRow<Reading> late = r.getValue();
            rows.add(
                    late.row + " missed " + Watermarks.format(late.watermark) + ": " + late.reason);
        }
        h.getSideOutput(router.lateRows()).clear();
        return rows;
    }
}
