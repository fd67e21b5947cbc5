package org.flinkss.runtime.table.delta;

import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;

import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.MessageType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The data files the project writes: every column type a Delta table here holds, with nulls and
 * edge values, reads back bit for bit through the project's reader and through Delta Kernel's own,
 * and the statistics the writer keeps are what a reader of the footer finds.
 */
class DataFilesTest {

    /** Every type a table here holds, timestamps at both precisions and both kinds. */
    static final RowType ALL =
            RowType.of(
                    new LogicalType[] {
                        new BigIntType(),
                        new IntType(),
                        VarCharType.STRING_TYPE,
                        new DoubleType(),
                        new BooleanType(),
                        new DateType(),
                        new TimestampType(6),
                        new LocalZonedTimestampType(3),
                        new LocalZonedTimestampType(6),
                        new VarBinaryType(VarBinaryType.MAX_LENGTH),
                        new BigIntType(false)
                    },
                    new String[] {
                        "id", "n", "s", "d", "b", "day", "ts", "ts_ltz3", "ts_ltz6", "bytes", "seq"
                    });

    private static final String LONG_STRING = "x".repeat(40);

    @TempDir java.nio.file.Path dir;

    /** Edge values, a row of nulls, then ordinary rows. */
    private static List<RowData> edgeRows() {
        Instant[] instants = {
            Instant.parse("2025-03-01T12:00:00.123456Z"),
            Instant.parse("1969-12-31T23:59:59.999999Z"),
            Instant.parse("1950-06-15T08:30:00.000001Z"),
            Instant.EPOCH,
            Instant.parse("2262-04-11T23:47:16.854775Z"),
            Instant.parse("1900-01-01T00:00:00.5Z")
        };
        double[] doubles = {
            Double.NaN,
            -0.0,
            0.0,
            Double.POSITIVE_INFINITY,
            Double.NEGATIVE_INFINITY,
            Double.MIN_VALUE,
            -Double.MAX_VALUE
        };
        String[] strings = {"", "žluťoučký kůň 😀", "ascii", LONG_STRING, "日本語", "\u0000nul"};
        long[] longs = {Long.MIN_VALUE, Long.MAX_VALUE, 0, -1};
        int[] ints = {Integer.MIN_VALUE, Integer.MAX_VALUE, 0, -1};
        List<RowData> rows = new ArrayList<>();
        GenericRowData nulls = new GenericRowData(ALL.getFieldCount());
        nulls.setField(0, 0L);
        nulls.setField(10, 0L);
        rows.add(nulls);
        for (int i = 1; i < 50; i++) {
            Instant t = instants[i % instants.length];
            String s = strings[i % strings.length];
            rows.add(
                    GenericRowData.of(
                            (long) i,
                            i % 5 == 0 ? null : ints[i % ints.length],
                            // Strings both as Java strings and as UTF-8 bytes (rows read back).
                            i % 2 == 0
                                    ? StringData.fromString(s)
                                    : BinaryStringData.fromBytes(
                                            s.getBytes(StandardCharsets.UTF_8)),
                            doubles[i % doubles.length],
                            i % 3 == 0,
                            (int) LocalDate.of(1969, 12, 31).plusDays(i * 1000L).toEpochDay(),
                            TimestampData.fromInstant(t),
                            TimestampData.fromInstant(t),
                            i % 4 == 0 ? null : TimestampData.fromInstant(t),
                            i % 6 == 0 ? new byte[0] : new byte[] {(byte) i, (byte) -i, 0},
                            longs[i % longs.length]));
        }
        return rows;
    }

    @Test
    void everyColumnTypeReadsBackBitForBitWithTheProjectsReaderAndWithKernels() throws Exception {
        List<RowData> rows = edgeRows();
        DeltaTable table = DeltaTable.forPath(dir.resolve("t").toString());
        table.create(ALL, Map.of());
        DataFile file = DataFiles.write(new Path(table.path()), ALL, rows);
        table.append("q", 0, List.of(file));

        List<List<Object>> expected = values(rows);
        assertThat(values(DataFiles.read(new Path(file.path()), ALL))).isEqualTo(expected);
        assertThat(TestRows.readWithKernel(table.path())).isEqualTo(expected);
    }

    @Test
    void theAddActionsStatisticsAreWhatTheFooterHoldsAndWhatFlinkParquetsFooterHeld()
            throws Exception {
        List<RowData> rows = edgeRows();
        DataFile written = DataFiles.write(new Path(dir.toUri()), ALL, rows);

        DataFile reread = DataFiles.describe(new Path(written.path()));
        assertThat(written.path()).isEqualTo(reread.path());
        assertThat(written.size())
                .isEqualTo(reread.size())
                .isEqualTo(java.nio.file.Files.size(path(written)));
        assertThat(written.numRecords()).isEqualTo(reread.numRecords()).isEqualTo(rows.size());
        assertThat(written.minValues()).isEqualTo(reread.minValues());
        assertThat(written.maxValues()).isEqualTo(reread.maxValues());
        // The timestamps' footers keep no statistics: their null counts are the writer's.
        Map<String, Long> nulls = new java.util.HashMap<>(reread.nullCounts());
        nulls.put("ts", 1L);
        nulls.put("ts_ltz3", 1L);
        nulls.put("ts_ltz6", 13L);
        assertThat(written.nullCounts()).isEqualTo(nulls);
        // The same statistics as flink-parquet's file of the same rows had in its footer.
        DataFile flinkParquet = DataFiles.describe(writeWithFlinkParquet(rows));
        assertThat(written.minValues()).isEqualTo(flinkParquet.minValues());
        assertThat(written.maxValues()).isEqualTo(flinkParquet.maxValues());
        assertThat(written.nullCounts()).isEqualTo(flinkParquet.nullCounts());

        assertThat(written.minValues())
                .containsEntry("id", 0L)
                .containsEntry("n", Integer.MIN_VALUE)
                .containsEntry("seq", Long.MIN_VALUE)
                .containsEntry("s", "")
                // a long string is no bound; NaN, INT96 and binary keep none
                .doesNotContainKeys("d", "ts", "ts_ltz3", "bytes");
        assertThat(written.maxValues())
                .containsEntry("s", "日本語")
                .containsEntry("seq", Long.MAX_VALUE);
        assertThat(written.nullCounts())
                .containsEntry("n", 10L)
                .containsEntry("s", 1L)
                .containsEntry("seq", 0L);
    }

    @Test
    void doublesWithoutNaNKeepBoundsAsAReaderOfTheFooterSeesThem() throws Exception {
        RowType type = RowType.of(new LogicalType[] {new DoubleType()}, new String[] {"d"});
        List<RowData> rows =
                List.of(GenericRowData.of(-0.0), GenericRowData.of(0.0), GenericRowData.of(2.5));
        DataFile written = DataFiles.write(new Path(dir.toUri()), type, rows);

        assertThat(written).isEqualTo(DataFiles.describe(new Path(written.path())));
        assertThat(written.minValues()).containsEntry("d", -0.0);
        assertThat(written.maxValues()).containsEntry("d", 2.5);
    }

    @Test
    void theFileHasFlinkParquetsSchemaSoEveryReaderSeesTheSameColumns() throws Exception {
        DataFile ours = DataFiles.write(new Path(dir.toUri()), ALL, edgeRows());

        assertThat(schema(path(ours)))
                .isEqualTo(schema(path(DataFiles.describe(writeWithFlinkParquet(edgeRows())))));
    }

    private Path writeWithFlinkParquet(List<RowData> rows) throws Exception {
        Path file =
                new Path(dir.resolve("flink-parquet-" + UUID.randomUUID() + ".parquet").toUri());
        try (FSDataOutputStream out =
                file.getFileSystem().create(file, FileSystem.WriteMode.NO_OVERWRITE)) {
            BulkWriter<RowData> writer = DataFiles.writerFactory(ALL).create(out);
            for (RowData row : rows) {
                writer.addElement(row);
            }
            writer.finish();
        }
        return file;
    }

    @Test
    void aRowTypeOutsideTheTablesTypesGoesThroughFlinkParquet() throws Exception {
        RowType type =
                RowType.of(
                        new LogicalType[] {new BigIntType(), new DecimalType(10, 2)},
                        new String[] {"id", "price"});
        List<RowData> rows =
                List.of(
                        GenericRowData.of(
                                1L, DecimalData.fromBigDecimal(new BigDecimal("12.34"), 10, 2)),
                        GenericRowData.of(2L, null));
        DataFile written = DataFiles.write(new Path(dir.toUri()), type, rows);

        assertThat(written).isEqualTo(DataFiles.describe(new Path(written.path())));
        List<RowData> read = DataFiles.read(new Path(written.path()), type);
        assertThat(read).hasSize(2);
        assertThat(read.get(0).getDecimal(1, 10, 2).toBigDecimal()).isEqualByComparingTo("12.34");
        assertThat(read.get(1).isNullAt(1)).isTrue();
    }

    private static java.nio.file.Path path(DataFile file) {
        return java.nio.file.Path.of(java.net.URI.create(file.path()));
    }

    private static MessageType schema(java.nio.file.Path file) throws Exception {
        try (ParquetFileReader reader =
                ParquetFileReader.open(
                        HadoopInputFile.fromPath(
                                new org.apache.hadoop.fs.Path(file.toUri()),
                                new org.apache.hadoop.conf.Configuration()))) {
            return reader.getFooter().getFileMetaData().getSchema();
        }
    }

    /** Rows as Java values as Kernel's reading in {@link TestRows} gives them, by id. */
    private static List<List<Object>> values(List<RowData> rows) {
        List<List<Object>> values = new ArrayList<>();
        for (RowData row : rows) {
            List<Object> v = new ArrayList<>();
            for (int i = 0; i < ALL.getFieldCount(); i++) {
                v.add(row.isNullAt(i) ? null : value(row, i, ALL.getTypeAt(i)));
            }
            values.add(v);
        }
        values.sort(Comparator.comparing(v -> (Long) v.get(0)));
        return values;
    }

    private static Object value(RowData row, int i, LogicalType type) {
        switch (type.getTypeRoot()) {
            case BIGINT:
                return row.getLong(i);
            case INTEGER:
                return row.getInt(i);
            case VARCHAR:
                return row.getString(i).toString();
            case DOUBLE:
                return row.getDouble(i);
            case BOOLEAN:
                return row.getBoolean(i);
            case DATE:
                return LocalDate.ofEpochDay(row.getInt(i));
            case VARBINARY:
                return HexFormat.of().formatHex(row.getBinary(i));
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                // Kernel reads microseconds: every instant here has no finer digit.
                return row.getTimestamp(i, 6).toInstant();
            default:
                throw new IllegalArgumentException(type.toString());
        }
    }
}
