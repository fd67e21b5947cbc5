package org.flinkss.runtime.operators;

import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;

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
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.flinkss.runtime.operators.Harness.hhmm;
import static org.flinkss.runtime.operators.Harness.push;
import static org.flinkss.runtime.operators.Harness.watermark;

/**
 * {@link DedupWithinWatermark} in Flink's keyed operator harness, with a 10-minute watermark delay:
 * which rows pass, what it remembers (its keyed state: when each key may be forgotten) and its
 * timers, after each row and each of Spark's watermarks.
 */
class DedupWithinWatermarkTest {

    private static final long DELAY = Duration.ofMinutes(10).toMillis();

    /**
     * Expiry buckets of an hour: the keys of one key group expiring in the same hour share a timer.
     */
    private static final long BUCKET = Duration.ofHours(1).toMillis();

    @TempDir Path base;

    private final List<KeyedOneInputStreamOperatorTestHarness<String, Reading, Reading>> open =
            new ArrayList<>();

    private RunScope scope() {
        return new RunScope(CheckpointLayout.of(Storage.location(base.toFile()), "dedup"), "run-1");
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
        // Both expire in the same hour and (one subtask, one key group here) share one timer.
        assertThat(h.numEventTimeTimers()).isEqualTo(1);
    }

    @Test
    void aRowWithoutEventTimePassesAndItsKeyExpiresAtTheEpochPlusTheDelay() throws Exception {
        // Issue 37: Spark reads the null event time as 0 (UnsafeRow.getLong), so the key expires
        // at 1970-01-01T00:10:00Z: in the first batch it is remembered until the watermark passes
        // that; later, only until the end of its batch (its watermark or checkpoint barrier).
        var h = harness(null);
        h.processElement(new StreamRecord<>(new Reading("1", null, 1)));
        h.processElement(new StreamRecord<>(new Reading("1", null, 2)));
        assertThat(drain(h)).containsExactly("1@none=1");
        assertThat(h.numEventTimeTimers()).isOne();

        // Step 1: the first batch's watermark forgets it; the next batch keeps its first row.
        watermark(h, "23:59");
        assertThat(h.numEventTimeTimers()).isZero();
        h.processElement(new StreamRecord<>(new Reading("1", null, 3)));
        // A source record without event time carries Long.MIN_VALUE as its timestamp.
        h.processElement(new StreamRecord<>(new Reading("1", null, 4), Long.MIN_VALUE));
        assertThat(drain(h)).as("remembered within its batch").containsExactly("1@none=3");

        // Step 2: a batch that moves no watermark ends with a checkpoint: forgotten there.
        h.prepareSnapshotPreBarrier(1);
        h.processElement(new StreamRecord<>(new Reading("1", null, 5)));
        assertThat(drain(h)).containsExactly("1@none=5");
        watermark(h, "23:59:30");
        push(h, "1", "23:59:40", 6);
        assertThat(drain(h)).as("a row with event time after it").containsExactly("1@23:59:40=6");
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

    @Test
    void keysExpiringInTheSameHourShareATimerAndAreForgottenEachAtItsOwnWatermark()
            throws Exception {
        var h = harness(null);
        push(h, "a", "00:55", 1); // forgotten at 01:05
        push(h, "b", "01:40", 2); // forgotten at 01:50, same hour
        push(h, "c", "02:30", 3); // forgotten at 02:40, the next hour
        drain(h);
        assertThat(h.numEventTimeTimers()).as("one per hour of expiry").isEqualTo(2);

        watermark(h, "01:04:59.999");
        assertThat(remembered(h)).containsOnlyKeys("a", "b", "c");
        watermark(h, "01:05");
        assertThat(remembered(h)).containsOnlyKeys("b", "c");
        // The hour's timer moved to its next expiry.
        assertThat(h.numEventTimeTimers()).isEqualTo(2);

        // A key that expires in the same hour before that: the hour gets an earlier timer.
        push(h, "d", "01:10", 4); // forgotten at 01:20
        push(h, "b", "01:11", 5); // still remembered: dropped
        assertThat(drain(h)).containsExactly("d@01:10:00=4");
        watermark(h, "01:19:59.999");
        assertThat(remembered(h)).containsOnlyKeys("b", "c", "d");
        watermark(h, "01:20");
        assertThat(remembered(h)).containsOnlyKeys("b", "c");
        watermark(h, "01:49:59.999");
        push(h, "b", "01:50", 6);
        assertThat(drain(h)).as("b still remembered").isEmpty();
        watermark(h, "01:50");
        assertThat(remembered(h)).containsOnlyKeys("c");
        assertThat(h.numEventTimeTimers()).isEqualTo(1);

        // A watermark past several hours at once forgets them all.
        push(h, "e", "02:00", 7);
        push(h, "f", "04:00", 8);
        watermark(h, "05:00");
        assertThat(remembered(h)).isEmpty();
        assertThat(h.numEventTimeTimers()).isZero();
        h.snapshot(1, 0);
        assertThat(stateRows(1).numRowsTotal()).isZero();
    }

    @Test
    void aRestoredBucketForgetsItsKeysAtTheirWatermarksAndTakesNewKeys() throws Exception {
        var before = harness(null);
        push(before, "a", "00:55", 1);
        push(before, "b", "01:40", 2);
        watermark(before, "01:05");
        OperatorSubtaskState snapshot = before.snapshot(1, 0);

        var after = harness(snapshot);
        assertThat(remembered(after)).containsExactly(Map.entry("b", "01:50"));
        push(after, "c", "01:10", 3);
        push(after, "b", "01:12", 4);
        assertThat(drain(after)).containsExactly("c@01:10:00=3");
        assertThat(after.numEventTimeTimers()).isEqualTo(2);
        watermark(after, "01:20");
        assertThat(remembered(after)).containsExactly(Map.entry("b", "01:50"));
        watermark(after, "01:50");
        assertThat(remembered(after)).isEmpty();
        assertThat(after.numEventTimeTimers()).isZero();
        after.snapshot(2, 0);
        assertThat(stateRows(2)).isEqualTo(new Fragment.StateRows("dedupe", 0, 0, 1));
    }

    @Test
    void aNewKeyWaitsOnTheHeapUntilASnapshotWritesItToKeyedState() throws Exception {
        var h = harness(null);
        push(h, "a", "00:01", 1);
        push(h, "b", "00:02", 2);
        push(h, "a", "00:03", 3);
        assertThat(drain(h)).containsExactly("a@00:01:00=1", "b@00:02:00=2");
        assertThat(stored(h)).isEmpty();
        assertThat(remembered(h)).containsOnlyKeys("a", "b");

        h.snapshot(1, 0);
        assertThat(stored(h)).containsExactly(Map.entry("a", "00:11"), Map.entry("b", "00:12"));
        assertThat(young(h)).isEmpty();
        assertThat(stateRows(1)).isEqualTo(new Fragment.StateRows("dedupe", 0, 2, 2));
    }

    @Test
    void aYoungKeyIsForgottenWithoutEverBeingWrittenToKeyedState() throws Exception {
        var h = harness(null);
        push(h, "a", "00:01", 1);
        watermark(h, "00:10:59.999");
        assertThat(young(h)).containsOnlyKeys("a");
        watermark(h, "00:11");
        assertThat(young(h)).isEmpty();
        assertThat(stored(h)).isEmpty();
        assertThat(h.numEventTimeTimers()).isZero();

        push(h, "a", "00:12", 2);
        assertThat(drain(h)).containsExactly("a@00:01:00=1", "a@00:12:00=2");
        h.snapshot(1, 0);
        assertThat(stored(h)).containsExactly(Map.entry("a", "00:22"));
        assertThat(stateRows(1)).isEqualTo(new Fragment.StateRows("dedupe", 0, 1, 2));
    }

    @Test
    void writtenAndYoungKeysOfOneBucketAreForgottenByItsOneTimer() throws Exception {
        var h = harness(null);
        push(h, "a", "00:01", 1); // forgotten at 00:11
        h.snapshot(1, 0);
        push(h, "b", "00:03", 2); // forgotten at 00:13, same bucket
        push(h, "c", "00:00:30", 3); // forgotten at 00:10:30: the bucket's timer moves earlier
        assertThat(stored(h)).containsOnlyKeys("a");
        assertThat(young(h)).containsOnlyKeys("b", "c");

        watermark(h, "00:10:30");
        assertThat(remembered(h)).containsOnlyKeys("a", "b");
        watermark(h, "00:11");
        assertThat(stored(h)).isEmpty();
        assertThat(young(h)).containsOnlyKeys("b");
        push(h, "a", "00:11", 4);
        push(h, "b", "00:11", 5);
        watermark(h, "00:13");
        assertThat(young(h)).containsOnlyKeys("a");
        push(h, "b", "00:14", 6);
        assertThat(drain(h))
                .containsExactly(
                        "a@00:01:00=1",
                        "b@00:03:00=2",
                        "c@00:00:30=3",
                        "a@00:11:00=4",
                        "b@00:14:00=6");
        h.snapshot(2, 0);
        assertThat(stored(h)).containsExactly(Map.entry("a", "00:21"), Map.entry("b", "00:24"));
        assertThat(stateRows(2)).isEqualTo(new Fragment.StateRows("dedupe", 0, 2, 4));
    }

    @Test
    void moreKeysThanWaitOnTheHeapAreAllForgottenAfterASnapshotAndARestore() throws Exception {
        // Young keys wait on the heap up to a limit, then go to keyed state and the index's
        // lists; the rest go at the snapshot. All must be listed, or a key would never be
        // forgotten.
        int limit = 1000;
        int keys = 2 * limit + 100;
        var before = harness(null);
        operator(before).limitYoungKeys(limit);
        for (int i = 0; i < keys; i++) {
            push(before, "k" + i, "00:01", i);
        }
        assertThat(before.extractOutputValues()).hasSize(keys);
        assertThat(stored(before)).hasSize(2 * limit);
        assertThat(young(before)).hasSize(100);
        OperatorSubtaskState snapshot = before.snapshot(1, 0);
        assertThat(stateRows(1)).isEqualTo(new Fragment.StateRows("dedupe", 0, keys, keys));

        var after = harness(snapshot);
        watermark(after, "00:10:59.999");
        assertThat(remembered(after)).hasSize(keys);
        watermark(after, "00:11");
        assertThat(remembered(after)).isEmpty();
        assertThat(after.numEventTimeTimers()).isZero();
        after.snapshot(2, 0);
        assertThat(stateRows(2)).isEqualTo(new Fragment.StateRows("dedupe", 0, 0, 0));
    }

    @Test
    void keysAndTheirExpiriesFollowTheirKeyGroupsToANewParallelism() throws Exception {
        List<String> keys = new ArrayList<>();
        var one = harness(null, 1, 0);
        for (int i = 0; i < 40; i++) {
            String key = "k" + i;
            keys.add(key);
            // Expiries spread over 00:10-00:49, in one hour bucket per key group.
            push(one, key, String.format("00:%02d", i), i);
        }
        drain(one);
        OperatorSubtaskState snapshot = one.snapshot(1, 0);

        Map<String, String> rememberedByBoth = new TreeMap<>();
        List<KeyedOneInputStreamOperatorTestHarness<String, Reading, Reading>> two =
                new ArrayList<>();
        for (int subtask = 0; subtask < 2; subtask++) {
            var h =
                    harness(
                            AbstractStreamOperatorTestHarness.repartitionOperatorState(
                                    snapshot, MAX_PARALLELISM, 1, 2, subtask),
                            2,
                            subtask);
            two.add(h);
            rememberedByBoth.putAll(remembered(h));
            assertThat(remembered(h)).isNotEmpty();
        }
        assertThat(rememberedByBoth).hasSize(40);
        assertThat(rememberedByBoth.get("k7")).isEqualTo("00:17");

        for (var h : two) {
            watermark(h, "00:29:59.999");
        }
        rememberedByBoth.clear();
        for (var h : two) {
            rememberedByBoth.putAll(remembered(h));
        }
        // k0..k19 (forgotten at 00:10..00:29) are gone; k20 (at 00:30) waits for the next
        // millisecond.
        assertThat(rememberedByBoth.keySet())
                .containsExactlyInAnyOrderElementsOf(keys.subList(20, 40));
        for (var h : two) {
            watermark(h, "00:30");
        }
        rememberedByBoth.clear();
        for (var h : two) {
            rememberedByBoth.putAll(remembered(h));
        }
        assertThat(rememberedByBoth.keySet())
                .containsExactlyInAnyOrderElementsOf(keys.subList(21, 40));
    }

    // ---------------------------------------------------------------------------------------

    private static final int MAX_PARALLELISM = 128;

    private KeyedOneInputStreamOperatorTestHarness<String, Reading, Reading> harness(
            OperatorSubtaskState restored, int parallelism, int subtask) throws Exception {
        var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new DedupWithinWatermark<String, Reading>("dedupe", DELAY, BUCKET, scope()),
                        (Reading r) -> r.key,
                        Types.STRING,
                        MAX_PARALLELISM,
                        parallelism,
                        subtask);
        open.add(h);
        if (restored != null) {
            h.initializeState(restored);
        }
        h.open();
        return h;
    }

    private KeyedOneInputStreamOperatorTestHarness<String, Reading, Reading> harness(
            OperatorSubtaskState restored) throws Exception {
        var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new DedupWithinWatermark<String, Reading>("dedupe", DELAY, BUCKET, scope()),
                        (Reading r) -> r.key,
                        Types.STRING);
        open.add(h);
        if (restored != null) {
            h.initializeState(restored);
        }
        h.open();
        return h;
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

    /**
     * The keys remembered, young or in keyed state, with the watermark (HH:mm) at which each may be
     * forgotten.
     */
    private static Map<String, String> remembered(
            KeyedOneInputStreamOperatorTestHarness<String, Reading, Reading> h) throws Exception {
        Map<String, String> remembered = stored(h);
        remembered.putAll(young(h));
        return remembered;
    }

    /** The young keys, remembered on the heap and not yet in keyed state. */
    private static Map<String, String> young(
            KeyedOneInputStreamOperatorTestHarness<String, Reading, Reading> h) {
        Map<String, String> young = new TreeMap<>();
        operator(h).youngKeys().forEach((key, expiry) -> young.put(key, hhmm(expiry)));
        return young;
    }

    @SuppressWarnings("unchecked")
    private static DedupWithinWatermark<String, Reading> operator(
            KeyedOneInputStreamOperatorTestHarness<String, Reading, Reading> h) {
        return (DedupWithinWatermark<String, Reading>) h.getOperator();
    }

    /** The keys in keyed state, with the watermark (HH:mm) at which each may be forgotten. */
    private static Map<String, String> stored(
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
