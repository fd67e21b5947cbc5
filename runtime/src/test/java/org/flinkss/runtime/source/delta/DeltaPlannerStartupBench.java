package org.flinkss.runtime.source.delta;

import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.source.ReadLimit;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Measurement, not a test (not run by the build): how long a {@link DeltaPlanner} takes to start a
 * run (restore a position near the table's end, fix the target, plan the first batch) on a table of
 * 10 versions and on one of 10,000, and from no position (the snapshot at the newest version). Run:
 * {@code java -cp <runtime test class path> ...DeltaPlannerStartupBench [versions]}.
 *
 * <p>Measured 2026-11-30 (2 cores, load average 12 to 21 from other builds; 1,000 versions, as
 * 10,000 empty commits take about 20 minutes on that machine): from a position, 10 versions 0.5 to
 * 1.0 ms, 1,000 versions 0.2 ms (the same: log entries are read by name); from no position (a new
 * stream: the snapshot at the newest version) 10 to 16 ms against 600 to 880 ms, which grows with
 * the versions and is left to look at.
 *
 * <p>The cause: the snapshot was taken by Kernel's time travel, whose search for a checkpoint stops
 * at the first {@code .crc} file and then lists the whole log (see {@code DeltaTable}); the newest
 * version now comes from Kernel's latest snapshot ({@code _last_checkpoint}). Measured 2026-11-30
 * 20:38 (same machine, load 4 to 6), 1,000 versions, before and after in two runs of the same
 * build: before, from no position 4.7 ms (10 versions) vs 92 to 173 ms (20 to 35 times); after, 2.2
 * to 2.9 ms vs 9.0 to 9.2 ms (3 to 4 times: the large table's start reads a Parquet checkpoint and
 * 9 entries, the small one 10 JSON entries and no checkpoint; the difference no longer grows with
 * the versions). 999 commits took 26 s after, 39 s before.
 *
 * <p>10,000 versions (9,999 commits in 328 s with checkpoints from the latest snapshot), the same
 * two tables started from no position by each build in turn (load 3 to 4): before 370 to 520 ms vs
 * 18 to 32 ms (about 17 times); with the latest snapshot 75 to 265 ms vs 12 to 21 ms; with the
 * latest snapshot listed once per start 34 to 71 ms vs 7 to 12 ms (about 5 times). What is left
 * grows with the log on a local disk only: one listing of {@code _delta_log/} (20,000 entries, 31
 * ms), as a local folder cannot be listed from a name on; an object store lists from one.
 *
 * <p>2026-12-01 05:30 (load 1.6 to 4), after Storage.listFrom (names read with File.list, status
 * only for the files from the name on; S3 lists from the name with StartAfter): 9,999 commits in
 * 810 s (load 10 to 20); 12 interleaved rounds on those two tables: from no position 10 versions
 * 5.8 to 15.6 ms, 10,000 versions 26.4 to 73.0 ms (3 to 5 times; 17 ms of it is reading the 21,000
 * names of the log folder, measured alone: 16 to 24 ms against 1.2 to 4.2 ms for 20); from a
 * position 0.9 to 6.5 ms against 0.5 to 2.0 ms (the same). A run restores from a position every
 * time but its first, and takes about 2 s from JVM start to exit: the first run of a new stream
 * over a 10,000-version table starts about 30 ms (1.5%) later, every later run no later.
 */
public final class DeltaPlannerStartupBench {

    public static void main(String[] args) throws Exception {
        int big = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        Path dir = Files.createTempDirectory("planner-bench");
        String small = table(dir.resolve("small"), 10);
        String large = table(dir.resolve("large"), big);
        for (int round = 0; round < 3; round++) {
            System.out.printf(
                    "round %d: 10 versions %.1f ms, %d versions %.1f ms (from a position);"
                            + " from no position %.1f ms vs %.1f ms%n",
                    round,
                    startMillis(small, 8),
                    big,
                    startMillis(large, big - 2),
                    startMillis(small, -1),
                    startMillis(large, -1));
        }
    }

    private static String table(Path folder, int versions) {
        String uri = folder.toUri().toString();
        DeltaTable t = DeltaTable.forPath(uri);
        t.create(RowType.of(new BigIntType()), Map.of());
        long start = System.nanoTime();
        for (int b = 0; b < versions - 1; b++) {
            t.append("bench", b, List.<DataFile>of());
        }
        System.out.printf(
                "%d commits in %.1f s%n", versions - 1, (System.nanoTime() - start) / 1e9);
        return uri;
    }

    /** Restore (at version {@code at}, or no position), refresh the target, plan a batch. */
    private static double startMillis(String folder, long at) throws Exception {
        long start = System.nanoTime();
        DeltaPlanner planner = new DeltaPlanner("t", folder);
        byte[] position = null;
        if (at >= 0) {
            org.apache.flink.core.memory.DataOutputSerializer out =
                    new org.apache.flink.core.memory.DataOutputSerializer(64);
            out.writeLong(at);
            out.writeBoolean(true);
            out.writeLong(at);
            out.writeLong(0);
            out.writeBoolean(false);
            position = out.getCopyOfBuffer();
        }
        planner.restore(position);
        planner.refreshTarget();
        planner.nextBatch(0, ReadLimit.none());
        return (System.nanoTime() - start) / 1e6;
    }
}
