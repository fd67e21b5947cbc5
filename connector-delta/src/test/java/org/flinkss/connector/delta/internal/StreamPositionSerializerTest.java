package org.flinkss.connector.delta.internal;

import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.core.fs.Path;

import org.junit.jupiter.api.Test;

import org.flinkss.runtime.table.delta.AddedFile;
import org.flinkss.runtime.table.delta.DataFile;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A Delta stream's position survives a checkpoint whole: its next version and queued files. */
class StreamPositionSerializerTest {

    @Test
    void aPositionReadsBackAsWritten() throws Exception {
        FileSourceSplit snapshotFile =
                new FileSourceSplit("s3-0", new Path("file:/t/a.parquet"), 0, 10, 5L, 10);
        FileSourceSplit added =
                VersionFollower.split(
                        new AddedFile(4, 1, DataFile.of("s3://b/t/part-1.parquet", 99, 7L, 3)));
        StreamPosition position = new StreamPosition(5, List.of(snapshotFile, added));

        StreamPositionSerializer serializer = StreamPositionSerializer.INSTANCE;
        StreamPosition back =
                serializer.deserialize(serializer.getVersion(), serializer.serialize(position));

        assertThat(back.nextVersion()).isEqualTo(5);
        assertThat(back.pending())
                .extracting(
                        FileSourceSplit::splitId, s -> s.path().toString(), FileSourceSplit::length)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("s3-0", "file:/t/a.parquet", 10L),
                        org.assertj.core.groups.Tuple.tuple(
                                "v4-1", "s3://b/t/part-1.parquet", 99L));
    }

    @Test
    void anUnknownVersionIsRefusedWithWhatToDo() {
        assertThatThrownBy(() -> StreamPositionSerializer.INSTANCE.deserialize(99, new byte[0]))
                .hasMessageContaining("serializer version 99")
                .hasMessageContaining("restore the checkpoint with the connector version");
    }
}
