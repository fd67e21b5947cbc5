package org.flinkss.runtime.source;

import org.apache.flink.core.io.SimpleVersionedSerializer;

import org.junit.jupiter.api.Test;

import org.flinkss.runtime.source.delta.DeltaSplit;
import org.flinkss.runtime.source.files.FileSplit;
import org.flinkss.runtime.source.kafka.KafkaSplit;

import java.io.IOException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A split serializer reads back what it wrote, and refuses bytes of a serializer version it does
 * not know (a newer flinkss's checkpoint) by name instead of misreading them.
 */
class SplitSerializerVersionsTest {

    @Test
    void fileSplits() throws Exception {
        check(new FileSplit.Serializer(), new FileSplit("file:/l/a.json", "a", 3, 7), "FileSplit");
    }

    @Test
    void deltaSplits() throws Exception {
        check(
                new DeltaSplit.Serializer(),
                new DeltaSplit("file:/w/t/part-0.parquet", 1234, 7, 3, true, 12, 5),
                "DeltaSplit");
    }

    @Test
    void kafkaSplits() throws Exception {
        check(new KafkaSplit.Serializer(), new KafkaSplit("events", 1, 10, 20, 4, 2), "KafkaSplit");
    }

    private static <S> void check(SimpleVersionedSerializer<S> serializer, S split, String name)
            throws IOException {
        byte[] bytes = serializer.serialize(split);
        assertThat(serializer.deserialize(serializer.getVersion(), bytes))
                .hasToString(split.toString());
        assertThatThrownBy(() -> serializer.deserialize(serializer.getVersion() + 1, bytes))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(name)
                .hasMessageContaining("serializer version " + (serializer.getVersion() + 1))
                .hasMessageContaining("'reset' the query");
    }
}
