package org.flinkss.runtime.table.delta;

import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.formats.parquet.row.ParquetRowDataBuilder;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarCharType;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The project's Parquet reader gives the rows flink-parquet's vectorized reader gives, value for
 * value (every column type of the tables, nulls, timestamps before 1970 with sub-millisecond
 * digits, strings of every width), for files of the project's writer and of flink-parquet's (older
 * tables, with and without dictionaries, several row groups), from any row on, and leaves to
 * flink-parquet the files it does not read.
 */
class RowParquetReaderTest {

    @TempDir java.nio.file.Path dir;

    private static final Instant[] INSTANTS = {
        Instant.parse("2025-03-01T12:00:00.123456Z"),
        Instant.parse("1969-12-31T23:59:59.999999Z"),
        Instant.parse("1950-06-15T08:30:00.000001Z"),
        Instant.EPOCH,
        Instant.parse("1969-07-20T20:17:40Z"),
        Instant.parse("2262-04-11T23:47:16.854775Z"),
        Instant.parse("1900-01-01T00:00:00.5Z")
    };

    private static final double[] DOUBLES = {
        Double.NaN, -0.0, 0.0, Double.POSITIVE_INFINITY, Double.MIN_VALUE, -Double.MAX_VALUE, 1.5
    };

    private static final String[] STRINGS = {
        "", "žluťoučký kůň 😀", "ascii", "x".repeat(40), "日本語", "\u0000nul", "view"
    };

    /**
     * A row of nulls (but the non-null {@code seq}), then rows of every type ({@link
     * DataFilesTest#ALL}) cycling through edge values, nulls in every nullable column now and then.
     * Without {@code beforeEpochWithMicros}, instants before 1970 have whole milliseconds.
     */
    private static List<RowData> rows(int count, boolean beforeEpochWithMicros) {
        List<RowData> rows = new ArrayList<>();
        GenericRowData nulls = new GenericRowData(DataFilesTest.ALL.getFieldCount());
        nulls.setField(10, 0L);
        rows.add(nulls);
        for (int i = 1; i < count; i++) {
            Instant t = INSTANTS[(i - 1) % INSTANTS.length];
            if (!beforeEpochWithMicros && t.isBefore(Instant.EPOCH)) {
                t = t.minusNanos(t.getNano() % 1_000_000);
            }
            TimestampData ts = TimestampData.fromInstant(t);
            rows.add(
                    GenericRowData.of(
                            i % 11 == 0 ? null : (long) i * 7919,
                            i % 5 == 0 ? null : i % 3 == 0 ? Integer.MIN_VALUE : i,
                            i % 13 == 0 ? null : StringData.fromString(STRINGS[i % 7] + i % 3),
                            i % 17 == 0 ? null : DOUBLES[i % DOUBLES.length],
                            i % 19 == 0 ? null : i % 2 == 0,
                            i % 23 == 0 ? null : i * 37 - 30_000,
                            i % 29 == 0 ? null : ts,
                            i % 31 == 0 ? null : ts,
                            i % 4 == 0 ? null : ts,
                            i % 6 == 0 ? new byte[0] : new byte[] {(byte) i, (byte) -i, 0},
                            i % 2 == 0 ? Long.MIN_VALUE + i : Long.MAX_VALUE - i));
        }
        return rows;
    }

    @Test
    void filesOfTheProjectsWriterReadAsFlinkParquetReadsThem() throws Exception {
        List<RowData> rows = rows(3000, true);
        Path file = new Path(DataFiles.write(dataDir(), DataFilesTest.ALL, rows).path());

        List<RowData> ours = readOurs(file, DataFilesTest.ALL, 0);
        assertThat(ours).isEqualTo(readFlinkParquet(file, DataFilesTest.ALL, 0)).isEqualTo(rows);
        // Before 1970 with sub-millisecond digits: the instant itself, in UTC.
        assertThat(ours.get(2).getTimestamp(6, 6).toInstant())
                .isEqualTo(Instant.parse("1969-12-31T23:59:59.999999Z"));
        assertThat(ours.get(3).getTimestamp(7, 6).toInstant())
                .isEqualTo(Instant.parse("1950-06-15T08:30:00.000001Z"));
        for (int i = 0; i < 10; i++) {
            assertThat(ours.get(0).isNullAt(i)).isTrue();
        }
        assertThat(ours.get(0).getLong(10)).isZero();
    }

    @Test
    void filesOfFlinkParquetsWriterWithAndWithoutDictionariesInManyRowGroupsReadTheSame()
            throws Exception {
        // flink-parquet's writer gives an instant before 1970 with sub-millisecond digits a
        // negative time of day, which its own reader refuses: such rows are compared apart.
        List<RowData> rows = rows(5000, false);
        for (boolean dictionary : new boolean[] {false, true}) {
            Path file = writeWithFlinkParquet(DataFilesTest.ALL, rows, dictionary, 4096);
            assertThat(DataFiles.open(file, DataFilesTest.ALL, 0))
                    .isInstanceOf(RowParquetReader.class)
                    .satisfies(DataFiles.RowIterator::close);
            assertThat(readOurs(file, DataFilesTest.ALL, 0))
                    .isEqualTo(readFlinkParquet(file, DataFilesTest.ALL, 0))
                    .isEqualTo(rows);
        }
    }

    @Test
    void aFlinkParquetFileBefore1970WithSubMillisecondDigitsReadsAsTheInstantItMeant()
            throws Exception {
        RowType type =
                RowType.of(new LogicalType[] {new LocalZonedTimestampType(6)}, new String[] {"t"});
        Instant t = Instant.parse("1969-12-31T23:59:59.999999Z");
        Path file =
                writeWithFlinkParquet(
                        type, List.of(GenericRowData.of(TimestampData.fromInstant(t))), false, 0);

        assertThat(readOurs(file, type, 0).get(0).getTimestamp(0, 6).toInstant()).isEqualTo(t);
    }

    @Test
    void fromAnyRowOnAsFlinkParquetRestoresAReaderMidFile() throws Exception {
        List<RowData> rows = rows(2500, false);
        Path file = writeWithFlinkParquet(DataFilesTest.ALL, rows, true, 4096);
        Path ours = new Path(DataFiles.write(dataDir(), DataFilesTest.ALL, rows).path());

        for (long skip : new long[] {1, 99, 100, 101, 1234, 2499, 2500, 3000}) {
            List<RowData> expected = rows.subList((int) Math.min(skip, rows.size()), rows.size());
            assertThat(readOurs(file, DataFilesTest.ALL, skip))
                    .as("skip %d", skip)
                    .isEqualTo(readFlinkParquet(file, DataFilesTest.ALL, skip))
                    .isEqualTo(expected);
            assertThat(readOurs(ours, DataFilesTest.ALL, skip)).isEqualTo(expected);
        }
        try (DataFiles.RowIterator it = DataFiles.open(file, DataFilesTest.ALL, 1234)) {
            assertThat(it.position()).isEqualTo(1234);
            it.next();
            assertThat(it.position()).isEqualTo(1235);
        }
    }

    @Test
    void plainPagesAreDecodedFromTheirBytesAndAnyOtherChunkByParquetMrsColumnReader()
            throws Exception {
        List<RowData> rows = rows(5000, false);
        Path ours = new Path(DataFiles.write(dataDir(), DataFilesTest.ALL, rows).path());
        Path plain = writeWithFlinkParquet(DataFilesTest.ALL, rows, false, 4096);
        Path dictionary = writeWithFlinkParquet(DataFilesTest.ALL, rows, true, 4096);
        int bool = DataFilesTest.ALL.getFieldIndex("b");
        assertThat(DataFilesTest.ALL.getTypeAt(bool).getTypeRoot())
                .isEqualTo(LogicalTypeRoot.BOOLEAN);

        for (Path file : List.of(ours, plain)) {
            try (RowParquetReader it = open(file, DataFilesTest.ALL, 0)) {
                it.next();
                for (int i = 0; i < DataFilesTest.ALL.getFieldCount(); i++) {
                    assertThat(it.column(i))
                            .as("column %d of %s", i, file)
                            .isInstanceOf(i == bool ? ColumnCursor.class : PlainColumn.class);
                }
                assertThat(it.column(bool)).isNotInstanceOf(PlainColumn.class);
            }
        }
        try (RowParquetReader it = open(dictionary, DataFilesTest.ALL, 0)) {
            it.next();
            assertThat(it.column(DataFilesTest.ALL.getFieldIndex("s")))
                    .as("a dictionary-encoded chunk (21 strings)")
                    .isNotInstanceOf(PlainColumn.class);
        }
        // Pages of about 1 KB: a chunk is many pages, and a restored reader skips across them.
        for (long skip : new long[] {0, 1, 777, 2048, 4999, 5000}) {
            assertThat(readOurs(plain, DataFilesTest.ALL, skip))
                    .as("skip %d", skip)
                    .isEqualTo(rows.subList((int) skip, rows.size()));
        }
    }

    @Test
    void versionTwoPagesAreReadByParquetMrsColumnReader() throws Exception {
        List<RowData> rows = rows(3000, false);
        org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration(false);
        conf.set("parquet.writer.version", "v2");
        conf.setBoolean("parquet.enable.dictionary", false);
        Path file = newFile();
        write(ParquetRowDataBuilder.createWriterFactory(DataFilesTest.ALL, conf, true), file, rows);
        try (ParquetFileReader parquet =
                ParquetFileReader.open(
                        new DataFiles.FlinkInputFile(
                                file.getFileSystem(),
                                file,
                                file.getFileSystem().getFileStatus(file).getLen()))) {
            PageReadStore group = parquet.readNextRowGroup();
            ColumnDescriptor id =
                    parquet.getFooter().getFileMetaData().getSchema().getColumns().get(0);
            assertThat(group.getPageReader(id).readPage()).isInstanceOf(DataPageV2.class);
        }

        try (RowParquetReader it = open(file, DataFilesTest.ALL, 0)) {
            it.next();
            assertThat(it.column(0)).isNotInstanceOf(PlainColumn.class);
        }
        // flink-parquet's reader refuses these files (DELTA_BINARY_PACKED); the rows written:
        assertThat(readOurs(file, DataFilesTest.ALL, 0)).isEqualTo(rows);
        assertThat(readOurs(file, DataFilesTest.ALL, 1234)).isEqualTo(rows.subList(1234, 3000));
    }

    @Test
    void anEmptyFileHasNoRows() throws Exception {
        Path ours = new Path(DataFiles.write(dataDir(), DataFilesTest.ALL, List.of()).path());
        Path theirs = writeWithFlinkParquet(DataFilesTest.ALL, List.of(), false, 0);

        assertThat(readOurs(ours, DataFilesTest.ALL, 0)).isEmpty();
        assertThat(readOurs(theirs, DataFilesTest.ALL, 0)).isEmpty();
    }

    @Test
    void aColumnTheFileLacksReadsAsNullsAsFlinkParquetReadsIt() throws Exception {
        RowType older =
                RowType.of(
                        new LogicalType[] {new BigIntType(), VarCharType.STRING_TYPE},
                        new String[] {"id", "s"});
        RowType newer =
                RowType.of(
                        new LogicalType[] {
                            new BigIntType(), new IntType(), VarCharType.STRING_TYPE
                        },
                        new String[] {"id", "added", "s"});
        Path file =
                new Path(
                        DataFiles.write(
                                        dataDir(),
                                        older,
                                        List.of(
                                                GenericRowData.of(1L, StringData.fromString("a")),
                                                GenericRowData.of(2L, null)))
                                .path());

        assertThat(readOurs(file, newer, 0))
                .isEqualTo(readFlinkParquet(file, newer, 0))
                .containsExactly(
                        GenericRowData.of(1L, null, StringData.fromString("a")),
                        GenericRowData.of(2L, null, null));
    }

    @Test
    void aFileWithInt64TimestampsIsLeftToFlinkParquet() throws Exception {
        RowType type =
                RowType.of(
                        new LogicalType[] {new BigIntType(), new TimestampType(6)},
                        new String[] {"id", "ts"});
        List<RowData> rows =
                List.of(
                        GenericRowData.of(
                                1L,
                                TimestampData.fromInstant(
                                        Instant.parse("2025-03-01T12:00:00.123456Z"))),
                        GenericRowData.of(2L, null));
        org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration(false);
        conf.setBoolean("parquet.write.int64.timestamp", true);
        conf.set("parquet.timestamp.time.unit", "micros");
        Path file = newFile();
        write(ParquetRowDataBuilder.createWriterFactory(type, conf, true), file, rows);

        try (DataFiles.RowIterator it = DataFiles.open(file, type, 0)) {
            assertThat(it).isNotInstanceOf(RowParquetReader.class);
        }
        assertThat(DataFiles.read(file, type)).isEqualTo(rows);
    }

    private Path dataDir() {
        return new Path(dir.toUri());
    }

    private Path newFile() {
        return new Path(dir.resolve("part-" + UUID.randomUUID() + ".parquet").toUri());
    }

    private static RowParquetReader open(Path file, RowType type, long skip) throws IOException {
        FileSystem fs = file.getFileSystem();
        long length = fs.getFileStatus(file).getLen();
        RowParquetReader reader =
                RowParquetReader.open(new DataFiles.FlinkInputFile(fs, file, length), type, skip);
        assertThat(reader).as("read here: %s", file).isNotNull();
        return reader;
    }

    private static List<RowData> readOurs(Path file, RowType type, long skip) throws IOException {
        FileSystem fs = file.getFileSystem();
        long length = fs.getFileStatus(file).getLen();
        try (DataFiles.RowIterator it =
                RowParquetReader.open(new DataFiles.FlinkInputFile(fs, file, length), type, skip)) {
            assertThat(it).as("the project's reader reads %s", file).isNotNull();
            assertThat(it.position()).isEqualTo(skip);
            return drain(it);
        }
    }

    private static List<RowData> readFlinkParquet(Path file, RowType type, long skip)
            throws IOException {
        try (DataFiles.RowIterator it =
                DataFiles.openWithFlinkParquet(
                        file.getFileSystem().getFileStatus(file), type, skip)) {
            return drain(it);
        }
    }

    private static List<RowData> drain(DataFiles.RowIterator it) throws IOException {
        List<RowData> rows = new ArrayList<>();
        RowData row;
        while ((row = it.next()) != null) {
            rows.add(row);
        }
        return rows;
    }

    /** flink-parquet's writer as older tables were written, row groups of about {@code block}. */
    private Path writeWithFlinkParquet(
            RowType type, List<RowData> rows, boolean dictionary, int block) throws IOException {
        org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration(false);
        conf.setBoolean("parquet.enable.dictionary", dictionary);
        conf.set("parquet.compression", "SNAPPY");
        if (block > 0) {
            conf.setInt("parquet.block.size", block);
            conf.setInt("parquet.page.size", block / 4);
        }
        Path file = newFile();
        write(ParquetRowDataBuilder.createWriterFactory(type, conf, true), file, rows);
        return file;
    }

    private static void write(
            org.apache.flink.api.common.serialization.BulkWriter.Factory<RowData> factory,
            Path file,
            List<RowData> rows)
            throws IOException {
        try (FSDataOutputStream out =
                file.getFileSystem().create(file, FileSystem.WriteMode.NO_OVERWRITE)) {
            BulkWriter<RowData> writer = factory.create(out);
            for (RowData row : rows) {
                writer.addElement(row);
            }
            writer.finish();
        }
    }
}
