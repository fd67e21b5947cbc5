package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.Path;

import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Rough costs of the log (not a test; the machine is shared, so read ratios, not absolutes): a
 * commit, and a stream's batch of one version (find the current version, read that version's entry)
 * in a table of 10 versions and one of N, with Kernel's checkpoints every 10 commits and with the
 * checkpoints deleted.
 *
 * <p>Run: {@code java -cp <test classpath> org.flinkss.runtime.table.delta.DeltaLogBench <folder>
 * [versions]}.
 */
public final class DeltaLogBench {

    public static void main(String[] args) throws Exception {
        java.nio.file.Path root = Paths.get(args[0]);
        int versions = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
        DataFile file = null;

        DeltaTable small = table(root.resolve("small"));
        file = DataFiles.write(new Path(small.path()), TestRows.EVENTS, TestRows.events(0, 100));
        for (int b = 0; b < 10; b++) {
            small.append("q", b, List.of(copy(file, small, b)));
        }

        boolean built = Files.exists(root.resolve("large/_delta_log"));
        DeltaTable large =
                built
                        ? DeltaTable.forPath(root.resolve("large").toString())
                        : table(root.resolve("large"));
        if (built) {
            versions = 0; // measure an existing table again
            large.checkpoint();
        }
        long start = System.nanoTime();
        long firstHundred = 0;
        long lastHundred = 0;
        for (int b = 0; b < versions; b++) {
            long t = System.nanoTime();
            large.append("q", b, List.of(copy(file, large, b)));
            long took = System.nanoTime() - t;
            if (b < 100) {
                firstHundred += took;
            } else if (b >= versions - 100) {
                lastHundred += took;
            }
            if (b % 1000 == 999) {
                System.out.printf("%d commits, %.1f s%n", b + 1, (System.nanoTime() - start) / 1e9);
            }
        }
        if (!built) {
            System.out.printf(
                    "commit: %.1f ms each for versions 1-100, %.1f ms each for the last 100 of"
                            + " %d%n",
                    firstHundred / 1e6 / 100, lastHundred / 1e6 / 100, versions);
        }
        commits("small", small, file);
        commits("large", large, file);
        try (Stream<java.nio.file.Path> log = Files.list(root.resolve("large/_delta_log"))) {
            System.out.println("log entries of the large table: " + log.count());
        }

        report("10 versions, checkpointed", small);
        report(large.version() + " versions, checkpointed", large);
        // The same log without its checkpoints, in a copy (the table itself stays checkpointed).
        java.nio.file.Path copy = root.resolve("large-no-checkpoint");
        Files.createDirectories(copy.resolve("_delta_log"));
        try (Stream<java.nio.file.Path> log = Files.list(root.resolve("large/_delta_log"))) {
            for (java.nio.file.Path p : (Iterable<java.nio.file.Path>) log::iterator) {
                String n = p.getFileName().toString();
                if (!n.contains("checkpoint")
                        && !Files.exists(copy.resolve("_delta_log").resolve(n))) {
                    Files.copy(p, copy.resolve("_delta_log").resolve(n));
                }
            }
        }
        report(large.version() + " versions, no checkpoint", DeltaTable.forPath(copy.toString()));
    }

    /** 30 more commits: each one's time, sorted (every tenth also writes a checkpoint). */
    private static void commits(String name, DeltaTable table, DataFile file) {
        long next = table.committedBatch("q").orElse(-1) + 1;
        List<Long> millis = new ArrayList<>();
        for (int b = 0; b < 30; b++) {
            long t = System.nanoTime();
            table.append("q", next + b, List.of(copy(file, table, (int) (next + b))));
            millis.add((System.nanoTime() - t) / 1_000_000);
        }
        List<Long> sorted = new ArrayList<>(millis);
        sorted.sort(null);
        System.out.printf(
                "commit, %s table (%d versions, %d files): median %d ms, min %d, max %d; in order"
                        + " %s%n",
                name,
                table.version(),
                table.snapshot().files().size(),
                sorted.get(15),
                sorted.get(0),
                sorted.get(29),
                millis);
    }

    private static DeltaTable table(java.nio.file.Path dir) {
        DeltaTable t = DeltaTable.forPath(dir.toString());
        t.create(TestRows.EVENTS, Map.of());
        return t;
    }

    /** The same data file, committed under another name (the log is what is measured). */
    private static DataFile copy(DataFile file, DeltaTable table, int b) {
        return new DataFile(
                table.path() + "/part-" + b + ".parquet",
                file.size(),
                file.modificationTime(),
                file.numRecords(),
                file.minValues(),
                file.maxValues(),
                file.nullCounts());
    }

    private static void report(String name, DeltaTable table) {
        // Warm up, then time a stream's batch of the last version, and a snapshot of the table.
        long last = table.version();
        for (int i = 0; i < 3; i++) {
            table.nextBatch(new DeltaOffset(last, 0), Long.MAX_VALUE, Long.MAX_VALUE);
        }
        int n = 20;
        long t = System.nanoTime();
        for (int i = 0; i < n; i++) {
            SourceBatch batch =
                    table.nextBatch(new DeltaOffset(last, 0), Long.MAX_VALUE, Long.MAX_VALUE);
            if (batch.files().size() != 1) {
                throw new IllegalStateException("expected one file, got " + batch.files());
            }
        }
        double batchMs = (System.nanoTime() - t) / 1e6 / n;
        t = System.nanoTime();
        for (int i = 0; i < n; i++) {
            table.version();
        }
        double versionMs = (System.nanoTime() - t) / 1e6 / n;
        t = System.nanoTime();
        for (int i = 0; i < n; i++) {
            table.filesAdded(last, last);
        }
        double entryMs = (System.nanoTime() - t) / 1e6 / n;
        t = System.nanoTime();
        for (int i = 0; i < n; i++) {
            table.snapshot();
        }
        double snapshotMs = (System.nanoTime() - t) / 1e6 / n;
        System.out.printf(
                "%s: a stream's batch of the last version %.1f ms (Kernel's current version %.1f"
                    + " ms, reading the entry %.1f ms); a snapshot with its file list %.1f ms%n",
                name, batchMs, versionMs, entryMs, snapshotMs);
    }
}
