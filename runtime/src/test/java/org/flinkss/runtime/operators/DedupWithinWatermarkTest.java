package org.flinkss.runtime.operators;

import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.RunScope;
import org.flinkss.runtime.progress.Fragment;
import org.flinkss.runtime.progress.Fragments;
import org.flinkss.runtime.time.Watermarks;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.flinkss.runtime.operators.WindowAggregateTest.at;
import static org.flinkss.runtime.operators.WindowAggregateTest.hhmm;

/**
 * {@link DedupWithinWatermark} in Flink's keyed operator harness, with a 10-minute watermark delay:
 * which rows pass, what it remembers (its keyed state: when each key may be forgotten) and its
 * timers, after each row and each of Spark's watermarks.
 */
class DedupWithinWatermarkTest {

    private static final long DELAY = Duration.ofMinutes(10).toMillis();

    @TempDir Path base;

    private final List<KeyedOneInputStreamOperatorTestHarness<String, Reading, Reading>> open =
            new ArrayList<>();

    private RunScope scope() {
        return new RunScope(CheckpointLayout.of(base, "dedup"), "run-1");
    }

    @AfterEach
    void close() throws Exception {
        for (var harness : open) {
            harness.close();
        }
    }

    @Test
    void theFirstRowOfAKeyPassesAndLaterOnesAreDroppedWhileItIsRemembered() throws Exception {
        var h = harness(null);

        push(h, "1", "00:01", 1);
        push(h, "1", "00:05", 2);
        push(h, "1", "00:00:30", 3);
        push(h, "2", "00:02", 4);

        assertThat(drain(h)).containsExactly("1@00:01:00=1", "2@00:02:00=4");
        // Each key is remembered until Spark's watermark reaches its first row's time + delay.
        assertThat(remembered(h)).containsExactly(Map.entry("1", "00:11"), Map.entry("2", "00:12"));
        assertThat(h.numEventTimeTimers()).isEqualTo(2);
    }

    @Test
    void aRowWithoutEventTimePassesAndItsKeyIsNeverForgotten() throws Exception {
        // Spark's expiry of such a key is null: no watermark ever reaches it.
        var h = harness(null);
        h.processElement(new StreamRecord<>(new Reading("1", null, 1)));
        assertThat(drain(h)).containsExactly("1@none=1");
        assertThat(h.numEventTimeTimers()).isZero();

        watermark(h, "23:59");
        push(h, "1", "23:59:30", 2);
        h.processElement(new StreamRecord<>(new Reading("1", null, 3)));
        assertThat(drain(h)).as("still remembered").isEmpty();

        // A source record without event time carries Long.MIN_VALUE as its timestamp.
        h.processElement(new StreamRecord<>(new Reading("2", null, 4), Long.MIN_VALUE));
        watermark(h, "23:59:59");
        h.processElement(new StreamRecord<>(new Reading("2", null, 5), Long.MIN_VALUE));
        assertThat(drain(h)).containsExactly("2@none=4");
        assertThat(h.numEventTimeTimers()).isZero();
    }

    @Test
    void aKeyIsForgottenWhenTheWatermarkReachesItsFirstRowsTimePlusTheDelay() throws Exception {
        var h = harness(null);
        push(h, "1", "00:01", 1);
        drain(h);

        watermark(h, "00:10:59.999");
        push(h, "1", "00:12", 2);
        assertThat(drain(h)).as("still remembered").isEmpty();
        assertThat(h.numEventTimeTimers()).isEqualTo(1);

        // Spark evicts a key when watermark >= expiresAt (StreamingDeduplicateWithinWatermarkExec).
        watermark(h, "00:11");
        assertThat(remembered(h)).isEmpty();
        assertThat(h.numEventTimeTimers()).isZero();

        // A duplicate after that passes again and is remembered anew. Spark differs inside one
        // run of several data batches (no no-data batch between them): it evicts after the rows
        // of the batch whose watermark reaches expiresAt, so a duplicate in that very batch is
        // still dropped there. Here the key is forgotten when the watermark arrives, before the
        // batch's rows.
        push(h, "1", "00:12", 3);
        assertThat(drain(h)).containsExactly("1@00:12:00=3");
        assertThat(remembered(h)).containsExactly(Map.entry("1", "00:22"));
    }

    @Test
    void aSnapshotReportsTheKeysRememberedAndThoseAddedSinceTheLastOne() throws Exception {
        var h = harness(null);
        push(h, "1", "00:01", 1);
        push(h, "1", "00:02", 1);
        push(h, "2", "00:03", 1);

        h.snapshot(1, 0);
        assertThat(stateRows(1)).isEqualTo(new Fragment.StateRows("dedupe", 0, 2, 2));

        watermark(h, "00:11");
        h.snapshot(2, 0);
        assertThat(stateRows(2)).isEqualTo(new Fragment.StateRows("dedupe", 0, 1, 0));
    }

    @Test
    void rememberedKeysAndTheirTimersComeBackFromASnapshot() throws Exception {
        var before = harness(null);
        push(before, "1", "00:01", 1);
        OperatorSubtaskState snapshot = before.snapshot(1, 0);

        var after = harness(snapshot);
        assertThat(remembered(after)).containsExactly(Map.entry("1", "00:11"));
        assertThat(after.numEventTimeTimers()).isEqualTo(1);
        push(after, "1", "00:02", 2);
        assertThat(drain(after)).isEmpty();

        watermark(after, "00:11");
        assertThat(remembered(after)).isEmpty();
        after.snapshot(2, 0);
        assertThat(stateRows(2)).isEqualTo(new Fragment.StateRows("dedupe", 0, 0, 0));
    }

    // ---------------------------------------------------------------------------------------

    private KeyedOneInputStreamOperatorTestHarness<String, Reading, Reading> harness(
            OperatorSubtaskState restored) throws Exception {
        var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(
                                new DedupWithinWatermark<String, Reading>(
                                        "dedupe", DELAY, scope())),
                        (Reading r) -> r.key,
                        Types.STRING);
        open.add(h);
        if (restored != null) {
            h.initializeState(restored);
        }
        h.open();
        return h;
    }

    private static void push(
            KeyedOneInputStreamOperatorTestHarness<String, Reading, Reading> h,
            String key,
            String time,
            long value)
            throws Exception {
        h.processElement(new Reading(key, at(time), value), at(time));
    }

    /** Spark's watermark {@code time}, as the operator gets it (Flink's is one less). */
    private static void watermark(
            KeyedOneInputStreamOperatorTestHarness<String, Reading, Reading> h, String time)
            throws Exception {
        h.processWatermark(Watermarks.toFlink(at(time)));
    }

    private static List<String> drain(
            KeyedOneInputStreamOperatorTestHarness<String, Reading, Reading> h) {
        List<String> rows =
                h.extractOutputValues().stream()
                        .map(Reading::toString)
                        .collect(Collectors.toList());
        h.getOutput().clear();
        return rows;
    }

    /** The keys in state, with the watermark (HH:mm) at which each may be forgotten. */
    private static Map<String, String> remembered(
            KeyedOneInputStreamOperatorTestHarness<String, Reading, Reading> h) throws Exception {
        KeyedStateBackend<String> backend = h.getOperator().getKeyedStateBackend();
        List<String> keys;
        try (var stream = backend.getKeys("expires-at", VoidNamespace.INSTANCE)) {
            keys = stream.sorted().collect(Collectors.toList());
        }
        Map<String, String> remembered = new TreeMap<>();
        for (String key : keys) {
            backend.setCurrentKey(key);
            ValueState<Long> expiresAt =
                    backend.getPartitionedState(
                            VoidNamespace.INSTANCE,
                            VoidNamespaceSerializer.INSTANCE,
                            new ValueStateDescriptor<>("expires-at", Types.LONG));
            if (expiresAt.value() != null) {
                remembered.put(key, hhmm(expiresAt.value()));
            }
        }
        return remembered;
    }

    private Fragment.StateRows stateRows(long checkpointId) {
        return Fragments.read(scope().fragments(checkpointId)).stream()
                .filter(f -> f instanceof Fragment.StateRows)
                .map(f -> (Fragment.StateRows) f)
                .findFirst()
                .orElseThrow();
    }
}
