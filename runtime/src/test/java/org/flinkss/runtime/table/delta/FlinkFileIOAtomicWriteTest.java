package org.flinkss.runtime.table.delta;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Kernel's atomic writes (checkpoint Parquet files) are published whole or not at all: a writer
 * that stops half-way still closes its stream (a cancelled task's thread is interrupted while it
 * writes a checkpoint), and the 4 bytes it had written were published as the table's checkpoint,
 * which every later reader refused ("is not a Parquet file (length is too low: 4)": ClusterITCase,
 * an orphaned job cancelled while it wrote one).
 */
class FlinkFileIOAtomicWriteTest {

    @TempDir Path dir;

    private final FlinkFileIO io = new FlinkFileIO(s -> PutIfAbsent.localDisk(), Map.of());

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** "PAR1", a body, the footer's length (little-endian), "PAR1". */
    private static byte[] parquet(String body, int footerLength) {
        byte[] b = bytes("PAR1" + body + "    PAR1");
        int at = b.length - 8;
        b[at] = (byte) footerLength;
        b[at + 1] = (byte) (footerLength >>> 8);
        b[at + 2] = (byte) (footerLength >>> 16);
        b[at + 3] = (byte) (footerLength >>> 24);
        return b;
    }

    @Test
    void aWriterThatStopsAfterTheHeaderPublishesNothing() throws Exception {
        Path target = dir.resolve("00000000000000000010.checkpoint.parquet");

        OutputStream out = io.newOutputFile(target.toUri().toString()).create(true);
        out.write(bytes("PAR1"));
        assertThatThrownBy(out::close)
                .isInstanceOf(IOException.class)
                .hasMessageContaining(target.getFileName().toString())
                .hasMessageContaining("stopped before the end (4 bytes, no Parquet footer)");
        assertThat(target).doesNotExist();
    }

    @Test
    void aWholeFileIsPublishedAsWritten() throws Exception {
        Path target = dir.resolve("00000000000000000020.checkpoint.parquet");
        byte[] whole = parquet("rowsfooter", 6);

        try (OutputStream out = io.newOutputFile(target.toUri().toString()).create(true)) {
            out.write(whole);
        }
        assertThat(target).hasBinaryContent(whole);
    }

    @Test
    void aWholeParquetFileHasItsMagicAtBothEndsAndAFooterThatFits() {
        assertThat(FlinkFileIO.isWholeParquetFile(parquet("rowsfooter", 6))).isTrue();
        assertThat(FlinkFileIO.isWholeParquetFile(parquet("rowsfooter", 10))).isTrue();
        assertThat(FlinkFileIO.isWholeParquetFile(parquet("rowsfooter", 11)))
                .as("a footer longer than the file")
                .isFalse();
        assertThat(FlinkFileIO.isWholeParquetFile(parquet("rowsfooter", 0))).isFalse();
        assertThat(FlinkFileIO.isWholeParquetFile(bytes("PAR1"))).isFalse();
        assertThat(FlinkFileIO.isWholeParquetFile(bytes("PAR1rows and a half"))).isFalse();
        assertThat(FlinkFileIO.isWholeParquetFile(new byte[0])).isFalse();
    }
}
