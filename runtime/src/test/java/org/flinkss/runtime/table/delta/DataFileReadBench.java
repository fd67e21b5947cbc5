package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Thread CPU of reading a Delta table's data files as the Delta source does ({@link
 * DataFiles#open}, every row copied out), flink-parquet's vectorized reader against the project's
 * {@link RowParquetReader}, interleaved (not a test; the machine is shared: thread CPU, not wall
 * time). The files are as {@code bench}'s {@code events_bronze}: the course's five columns, files
 * of 5,000 rows written by the project's writer.
 *
 * <p>Run: {@code java -cp <test classpath> org.flinkss.runtime.table.delta.DataFileReadBench <new
 * folder> [files] [rounds]}.
 */
public final class DataFileReadBench {

    static final RowType EVENT =
            RowType.of(
                    new LogicalType[] {
                        new BigIntType(),
                        new IntType(),
                        VarCharType.STRING_TYPE,
                        new LocalZonedTimestampType(6),
                        new DoubleType()
                    },
                    new String[] {"event_id", "user_id", "event_type", "event_ts", "amount"});

    private static final String[] TYPES = {"view", "add_to_cart", "purchase", "view", "view"};

    public static void main(String[] args) throws Exception {
        java.nio.file.Path root = Files.createDirectories(java.nio.file.Path.of(args[0]));
        int files = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        int perFile = args.length > 3 ? Integer.parseInt(args[3]) : 5_000;
        List<Path> paths = new ArrayList<>();
        Instant t0 = Instant.parse("2025-03-01T00:00:00Z");
        for (int f = 0; f < files; f++) {
            List<RowData> rows = new ArrayList<>();
            for (int i = 0; i < perFile; i++) {
                long id = (long) f * perFile + i;
                rows.add(
                        GenericRowData.of(
                                id,
                                (int) (id % 1000),
                                StringData.fromString(TYPES[(int) (id % TYPES.length)]),
                                TimestampData.fromInstant(
                                        t0.plusMillis(id * 10_000 + id % 997).plusNanos(123_000)),
                                id % 50 == 0 ? null : (id % 10_000) / 100.0));
            }
            paths.add(new Path(DataFiles.write(new Path(root.toUri()), EVENT, rows).path()));
        }
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long rowsPerRound = (long) files * perFile;
        for (int r = 0; r < rounds; r++) {
            for (boolean ours : new boolean[] {false, true}) {
                long cpu = mx.getCurrentThreadCpuTime();
                long checksum = 0;
                for (Path p : paths) {
                    try (DataFiles.RowIterator it =
                            ours
                                    ? DataFiles.open(p, EVENT, 0)
                                    : DataFiles.openWithFlinkParquet(
                                            p.getFileSystem().getFileStatus(p), EVENT, 0)) {
                        RowData row;
                        while ((row = it.next()) != null) {
                            checksum += row.getLong(0);
                        }
                    }
                }
                long took = mx.getCurrentThreadCpuTime() - cpu;
                System.out.printf(
                        "round %d %-12s %6.1f ns/row (%.2f s thread CPU, checksum %d)%n",
                        r,
                        ours ? "project" : "flink-parquet",
                        (double) took / rowsPerRound,
                        took / 1e9,
                        checksum);
            }
        }
    }
}
