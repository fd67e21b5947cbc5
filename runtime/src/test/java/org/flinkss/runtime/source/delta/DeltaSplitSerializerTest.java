package org.flinkss.runtime.source.delta;

import org.junit.jupiter.api.Test;

import java.util.HexFormat;

import static org.assertj.core.api.Assertions.assertThat;

/** Delta splits are kept in checkpoints and the offset log: their bytes must not change. */
class DeltaSplitSerializerTest {

    // Version 1 of the split written by an earlier build: path, size, version, index, snapshot,
    // batch id, position.
    private static final String VERSION_1 =
            "001866696c653a2f772f742f706172742d302e7061727175657400000000000004d2"
                    + "0000000000000007000000000000000301000000000000000c0000000000000005";

    @Test
    void aSplitWrittenByVersion1ReadsBackWithEveryField() throws Exception {
        DeltaSplit split =
                new DeltaSplit.Serializer().deserialize(1, HexFormat.of().parseHex(VERSION_1));

        assertThat(split.path()).isEqualTo("file:/w/t/part-0.parquet");
        assertThat(split.size()).isEqualTo(1234);
        assertThat(split.version()).isEqualTo(7);
        assertThat(split.index()).isEqualTo(3);
        assertThat(split.snapshot()).isTrue();
        assertThat(split.batchId()).isEqualTo(12);
        assertThat(split.position()).isEqualTo(5);
        assertThat(split.splitId()).isEqualTo("s7-3");
    }

    @Test
    void aSplitIsWrittenAsVersion1() throws Exception {
        DeltaSplit.Serializer serializer = new DeltaSplit.Serializer();
        DeltaSplit split = new DeltaSplit("file:/w/t/part-0.parquet", 1234, 7, 3, true, 12, 5);

        assertThat(serializer.getVersion()).isEqualTo(1);
        assertThat(HexFormat.of().formatHex(serializer.serialize(split))).isEqualTo(VERSION_1);
    }

    @Test
    void aLogSplitKeepsItsPositionAcrossARoundTrip() throws Exception {
        DeltaSplit.Serializer serializer = new DeltaSplit.Serializer();
        DeltaSplit split = new DeltaSplit("file:/w/t/b.parquet", 10, 4, 0, false, 2, 0);

        DeltaSplit back =
                serializer.deserialize(
                        serializer.getVersion(), serializer.serialize(split.withPosition(99)));

        assertThat(back.splitId()).isEqualTo("v4-0");
        assertThat(back.snapshot()).isFalse();
        assertThat(back.position()).isEqualTo(99);
    }
}
