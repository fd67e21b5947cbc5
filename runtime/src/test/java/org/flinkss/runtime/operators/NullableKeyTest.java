package org.flinkss.runtime.operators;

import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.progress.RunScope;
import org.flinkss.runtime.storage.Storage;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.flinkss.runtime.operators.Harness.at;
import static org.flinkss.runtime.operators.Harness.watermark;

/**
 * Issue 37 point 5: {@link NullableKey}, the key of a column that may be NULL, and its versioned
 * serializer; and {@link DedupWithinWatermark} keyed by it, where a null event id and the id {@link
 * Long#MIN_VALUE} (which used to stand for null) are two keys.
 */
class NullableKeyTest {

    private static final long DELAY = Duration.ofMinutes(10).toMillis();

    @TempDir Path base;

    @Test
    void theNullKeyIsNoValueAndEveryKeyReadsBackEqual() throws IOException {
        List<NullableKey> keys =
                List.of(
                        NullableKey.of((Long) null),
                        NullableKey.of(Long.MIN_VALUE),
                        NullableKey.of(0L),
                        NullableKey.of(Long.MAX_VALUE),
                        NullableKey.of((Integer) null),
                        NullableKey.of(Integer.MIN_VALUE));
        DataOutputSerializer out = new DataOutputSerializer(64);
        for (NullableKey k : keys) {
            NullableKeySerializer.INSTANCE.serialize(k, out);
        }
        assertThat(out.length()).isEqualTo(9 * keys.size());
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
        List<NullableKey> read = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            read.add(NullableKeySerializer.INSTANCE.deserialize(in));
        }

        assertThat(read).isEqualTo(keys);
        assertThat(NullableKey.of((Long) null)).isNotEqualTo(NullableKey.of(Long.MIN_VALUE));
        assertThat(NullableKey.of((Integer) null)).isNotEqualTo(NullableKey.of(0));
        assertThat(NullableKey.of((Long) null).asLong()).isNull();
        assertThat(NullableKey.of(Integer.MIN_VALUE).asInt()).isEqualTo(Integer.MIN_VALUE);
        // Key groups come from the hash: the same in every JVM, so a restore finds its keys.
        assertThat(KeyGroupRangeAssignment.assignToKeyGroup(NullableKey.of(42L), 128))
                .isEqualTo(KeyGroupRangeAssignment.assignToKeyGroup(Long.hashCode(42L), 128));
    }

    @Test
    void itsSnapshotRestoresItAndRefusesOtherFormatsInOneLine() throws Exception {
        TypeSerializerSnapshot<NullableKey> snapshot =
                NullableKeySerializer.INSTANCE.snapshotConfiguration();
        DataOutputSerializer out = new DataOutputSerializer(16);
        snapshot.writeSnapshot(out);
        NullableKeySerializer.Snapshot read = new NullableKeySerializer.Snapshot();
        read.readSnapshot(
                snapshot.getCurrentVersion(),
                new DataInputDeserializer(out.getCopyOfBuffer()),
                getClass().getClassLoader());

        assertThat(read.restoreSerializer()).isSameAs(NullableKeySerializer.INSTANCE);
        assertThat(snapshot.resolveSchemaCompatibility(read).isCompatibleAsIs()).isTrue();
        // A format this code does not know: refused, saying what to do.
        assertThatThrownBy(
                        () ->
                                new NullableKeySerializer.Snapshot()
                                        .readSnapshot(
                                                2,
                                                new DataInputDeserializer(new byte[0]),
                                                getClass().getClassLoader()))
                .isInstanceOf(IOException.class)
                .hasMessage(
                        "the checkpoint holds keys in nullable-key format 2, which this flinkss"
                                + " does not read (it reads format 1): run the flinkss that wrote"
                                + " the checkpoint, or 'reset' the query");
    }

    @Test
    void keysOfTheLongLayoutAreNotReadAsNullableKeys() {
        // A dedup checkpoint of the long-key layout is refused before Flink restores it (the
        // query's identity names the layout); were it not, Flink would refuse it here.
        @SuppressWarnings({"unchecked", "rawtypes"})
        TypeSerializerSnapshot<NullableKey> longKeys =
                (TypeSerializerSnapshot) LongSerializer.INSTANCE.snapshotConfiguration();
        assertThat(
                        NullableKeySerializer.INSTANCE
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(longKeys)
                                .isIncompatible())
                .isTrue();
    }

    @Test
    void dedupKeepsANullIdAndTheIdMinusTwoToThe63ApartAcrossASnapshot() throws Exception {
        var before = harness(null);
        push(before, null, 1, "00:01");
        push(before, Long.MIN_VALUE, 2, "00:02");
        push(before, null, 3, "00:03");
        assertThat(drain(before)).containsExactly("NULL=1", "-9223372036854775808=2");
        OperatorSubtaskState snapshot = before.snapshot(1, 0);

        var after = harness(snapshot);
        push(after, Long.MIN_VALUE, 4, "00:04");
        push(after, null, 5, "00:05");
        assertThat(drain(after)).as("both keys are remembered after a restore").isEmpty();

        // Each is forgotten at its own expiry: 00:01 + 10 min, 00:02 + 10 min.
        watermark(after, "00:11");
        push(after, null, 6, "00:11:30");
        push(after, Long.MIN_VALUE, 7, "00:11:30");
        assertThat(drain(after)).containsExactly("NULL=6");
    }

    // ---------------------------------------------------------------------------------------

    private final List<KeyedOneInputStreamOperatorTestHarness<NullableKey, Reading, Reading>> open =
            new ArrayList<>();

    private KeyedOneInputStreamOperatorTestHarness<NullableKey, Reading, Reading> harness(
            OperatorSubtaskState restored) throws Exception {
        var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new DedupWithinWatermark<NullableKey, Reading>(
                                "dedupe",
                                DELAY,
                                Duration.ofDays(1).toMillis(),
                                new RunScope(
                                        CheckpointLayout.of(
                                                Storage.location(base.toFile()), "dedup"),
                                        "run-1")),
                        (Reading r) -> NullableKey.of(r.key == null ? null : Long.valueOf(r.key)),
                        NullableKey.TYPE);
        open.add(h);
        if (restored != null) {
            h.initializeState(restored);
        }
        h.open();
        return h;
    }

    private static void push(
            KeyedOneInputStreamOperatorTestHarness<NullableKey, Reading, Reading> h,
            Long id,
            long value,
            String time)
            throws Exception {
        h.processElement(new Reading(id == null ? null : id.toString(), at(time), value), at(time));
    }

    private static List<String> drain(
            KeyedOneInputStreamOperatorTestHarness<NullableKey, Reading, Reading> h) {
        List<String> rows = new ArrayList<>();
        for (Reading r : h.extractOutputValues()) {
            rows.add((r.key == null ? "NULL" : r.key) + "=" + r.value);
        }
        h.getOutput().clear();
        return rows;
    }
}
