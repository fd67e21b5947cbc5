package org.flinkss.connector.delta.internal;

import org.junit.jupiter.api.Test;

import org.flinkss.runtime.table.delta.DataFile;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Committables survive a checkpoint whole: the txn, the files and their statistics. */
class DeltaCommittableSerializerTest {

    @Test
    void aCommittableReadsBackAsWritten() throws Exception {
        DataFile a =
                new DataFile(
                        "file:/t/flink-j-00000-a.parquet",
                        1234,
                        1_700_000_000_000L,
                        10,
                        Map.of("id", 1L, "name", "a"),
                        Map.of("id", 10L, "name", "j"),
                        Map.of("name", 2L));
        DataFile b = DataFile.of("file:/t/flink-j-00001-b.parquet", 99, 1L, 3);
        DeltaCommittable committable = new DeltaCommittable("flink-j", 7, List.of(a, b));

        DeltaCommittableSerializer serializer = new DeltaCommittableSerializer();
        DeltaCommittable back =
                serializer.deserialize(serializer.getVersion(), serializer.serialize(committable));

        assertThat(back).isEqualTo(committable);
    }

    @Test
    void anUnknownVersionIsRefusedWithWhatToDo() {
        assertThatThrownBy(() -> new DeltaCommittableSerializer().deserialize(99, new byte[0]))
                .hasMessageContaining("serializer version 99")
                .hasMessageContaining("restore the checkpoint with the connector version");
    }
}
