package org.flinkss.runtime.table.delta;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarCharType;

import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.Table;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import org.apache.hadoop.conf.Configuration;

import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/** Rows of the tests, and the rows of a Delta table as values, read two independent ways. */
final class TestRows {

    /** Every type a table here holds. */
    static final RowType EVENTS =
            RowType.of(
                    new LogicalType[] {
                        new BigIntType(),
                        new IntType(),
                        VarCharType.STRING_TYPE,
                        new TimestampType(3),
                        new DoubleType(),
                        new BooleanType(),
                        new DateType()
                    },
                    new String[] {
                        "event_id", "user_id", "event_type", "event_ts", "amount", "flagged", "day"
                    });

    static final Instant T0 = Instant.parse("2025-03-01T00:00:00.123Z");

    private TestRows() {}

    /** Rows {@code from} to {@code from + n - 1}; every seventh has nulls. */
    static List<RowData> events(long from, int n) {
        List<RowData> rows = new ArrayList<>();
        for (long id = from; id < from + n; id++) {
            boolean nulls = id % 7 == 3;
            rows.add(
                    GenericRowData.of(
                            id,
                            (int) (id % 10),
                            nulls ? null : StringData.fromString(id % 2 == 0 ? "view" : "click"),
                            TimestampData.fromInstant(T0.plusSeconds(id * 10)),
                            nulls ? null : id * 1.5,
                            id % 3 == 0,
                            (int) LocalDate.of(2025, 3, 1).plusDays(id % 5).toEpochDay()));
        }
        return rows;
    }

    /**
     * Values as Java objects: Long, Integer, String, Instant (micros), Double, Boolean, LocalDate.
     */
    static List<Object> values(RowData row, RowType type) {
        List<Object> values = new ArrayList<>();
        for (int i = 0; i < type.getFieldCount(); i++) {
            LogicalType t = type.getTypeAt(i);
            if (row.isNullAt(i)) {
                values.add(null);
                continue;
            }
            switch (t.getTypeRoot()) {
                case BIGINT:
                    values.add(row.getLong(i));
                    break;
                case INTEGER:
                    values.add(row.getInt(i));
                    break;
                case VARCHAR:
                    values.add(row.getString(i).toString());
                    break;
                case DOUBLE:
                    values.add(row.getDouble(i));
                    break;
                case BOOLEAN:
                    values.add(row.getBoolean(i));
                    break;
                case DATE:
                    values.add(LocalDate.ofEpochDay(row.getInt(i)));
                    break;
                case TIMESTAMP_WITHOUT_TIME_ZONE:
                    values.add(
                            row.getTimestamp(i, ((TimestampType) t).getPrecision())
                                    .toInstant()
                                    .truncatedTo(ChronoUnit.MICROS));
                    break;
                default:
                    throw new IllegalArgumentException(t.toString());
            }
        }
        return values;
    }

    static List<List<Object>> values(List<RowData> rows, RowType type) {
        List<List<Object>> values = new ArrayList<>();
        for (RowData row : rows) {
            values.add(values(row, type));
        }
        values.sort(Comparator.comparing(v -> (Long) v.get(0)));
        return values;
    }

    /**
     * The rows of a table's current version as Delta Kernel reads them, with its own Parquet reader
     * and its own engine on Hadoop's file systems: nothing of the project's reading is involved.
     */
    static List<List<Object>> readWithKernel(String tablePath) throws Exception {
        Engine engine = DefaultEngine.create(new Configuration());
        Snapshot snapshot = Table.forPath(engine, tablePath).getLatestSnapshot(engine);
        StructType schema = snapshot.getSchema();
        Scan scan = snapshot.getScanBuilder().build();
        List<List<Object>> values = new ArrayList<>();
        try (CloseableIterator<FilteredColumnarBatch> files = scan.getScanFiles(engine)) {
            while (files.hasNext()) {
                try (CloseableIterator<Row> rows = files.next().getRows()) {
                    while (rows.hasNext()) {
                        FileStatus file = KernelInternals.fileStatus(rows.next());
                        try (CloseableIterator<ColumnarBatch> data =
                                engine.getParquetHandler()
                                        .readParquetFiles(
                                                singleton(file), schema, Optional.empty())) {
                            while (data.hasNext()) {
                                ColumnarBatch batch = data.next();
                                for (int r = 0; r < batch.getSize(); r++) {
                                    List<Object> row = new ArrayList<>();
                                    for (int c = 0; c < schema.length(); c++) {
                                        row.add(
                                                value(
                                                        batch.getColumnVector(c),
                                                        r,
                                                        schema.at(c).getDataType()));
                                    }
                                    values.add(row);
                                }
                            }
                        }
                    }
                }
            }
        }
        values.sort(Comparator.comparing(v -> (Long) v.get(0)));
        return values;
    }

    private static Object value(ColumnVector v, int r, DataType type) {
        if (v.isNullAt(r)) {
            return null;
        }
        if (type instanceof io.delta.kernel.types.LongType) {
            return v.getLong(r);
        } else if (type instanceof io.delta.kernel.types.IntegerType) {
            return v.getInt(r);
        } else if (type instanceof io.delta.kernel.types.StringType) {
            return v.getString(r);
        } else if (type instanceof io.delta.kernel.types.DoubleType) {
            return v.getDouble(r);
        } else if (type instanceof io.delta.kernel.types.BooleanType) {
            return v.getBoolean(r);
        } else if (type instanceof io.delta.kernel.types.DateType) {
            return LocalDate.ofEpochDay(v.getInt(r));
        } else if (type instanceof io.delta.kernel.types.BinaryType) {
            return java.util.HexFormat.of().formatHex(v.getBinary(r));
        } else if (type instanceof io.delta.kernel.types.TimestampType) {
            long micros = v.getLong(r);
            return Instant.ofEpochSecond(
                    Math.floorDiv(micros, 1_000_000), Math.floorMod(micros, 1_000_000) * 1000L);
        }
        throw new IllegalArgumentException(type.toString());
    }

    private static <T> CloseableIterator<T> singleton(T t) {
        List<T> list = List.of(t);
        var it = list.iterator();
        return new CloseableIterator<>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public T next() {
                return it.next();
            }

            @Override
            public void close() {}
        };
    }
}
