package org.flinkss.jobs.s3;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.source.ReadLimit;
import org.flinkss.runtime.source.files.FilePlanner;
import org.flinkss.runtime.source.files.FileSplit;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.testing.S3TestServer;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * How long the file source takes to plan a batch over a landing prefix on S3 (S3Proxy through
 * {@code scripts/s3}) that holds 10,000 files it has already read, against one that holds 10, with
 * 10 new files in both (not a test): a new {@link FilePlanner} restored from the committed
 * position, one {@code refreshTarget} (the listing) and one {@code nextBatch}, as a run starts.
 * Wall time, the two interleaved, several repeats; the server is another process on the same shared
 * cores.
 *
 * <p>Two layouts: land-events' ({@code batch_<n>/part-...json}, one file per folder: 10,010
 * folders) and 20 folders of 500 files. A local folder of the first layout is timed too, for
 * comparison.
 *
 * <p>Run: {@code java -cp <jobs test classpath> org.flinkss.jobs.s3.LandingListingBench [repeats=5]
 * [keys per list request, default S3A's 5000 asked, S3Proxy gives 1000]}.
 */
public final class LandingListingBench {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private static final int PROCESSED = 10_000;
    private static final int NEW = 10;

    public static void main(String[] args) throws Exception {
        int repeats = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int pageSize = args.length > 1 ? Integer.parseInt(args[1]) : 0;
        S3TestServer server = S3TestServer.start("landing-listing-bench");
        if (server == null) {
            throw new IllegalStateException("scripts/s3 needs curl");
        }
        if (pageSize > 0) {
            // S3A's keys per list request (fs.s3a.paging.maximum; S3 itself gives 1,000 at most).
            Configuration conf = server.flinkConfiguration();
            conf.setString("s3.paging.maximum", String.valueOf(pageSize));
            Storage.initialize(conf);
        }
        try {
            Path root = server.freshPrefix("bench");
            java.nio.file.Path localRoot = Files.createTempDirectory("landing-listing-bench");
            List<Case> cases = new ArrayList<>();
            for (Layout layout : Layout.values()) {
                cases.add(Case.prepare(new Path(root, layout + "-big"), layout, PROCESSED));
                cases.add(Case.prepare(new Path(root, layout + "-small"), layout, NEW));
            }
            cases.add(
                    Case.prepare(
                            Storage.location(localRoot.resolve("local-big").toFile()),
                            Layout.FOLDER_PER_FILE,
                            PROCESSED));
            cases.add(
                    Case.prepare(
                            Storage.location(localRoot.resolve("local-small").toFile()),
                            Layout.FOLDER_PER_FILE,
                            NEW));
            for (Case c : cases) {
                c.plan(); // warm-up: class loading, connections
            }
            long[][] millis = new long[cases.size()][repeats];
            long[][] cpu = new long[cases.size()][repeats];
            for (int r = 0; r < repeats; r++) {
                for (int i = 0; i < cases.size(); i++) {
                    long cpuBefore = THREADS.getCurrentThreadCpuTime();
                    millis[i][r] = cases.get(i).plan();
                    cpu[i][r] = (THREADS.getCurrentThreadCpuTime() - cpuBefore) / 1_000_000;
                }
            }
            for (int i = 0; i < cases.size(); i++) {
                long[] m = millis[i].clone();
                Arrays.sort(m);
                System.out.printf(
                        Locale.ROOT,
                        "%-28s processed %5d + new %d: min %6d ms, median %6d ms, all %s;"
                                + " planning thread's CPU %s ms%n",
                        cases.get(i).name,
                        cases.get(i).processed,
                        NEW,
                        m[0],
                        m[m.length / 2],
                        Arrays.toString(millis[i]),
                        Arrays.toString(cpu[i]));
            }
            for (int i = 0; i + 1 < cases.size(); i += 2) {
                long[] big = millis[i].clone();
                long[] small = millis[i + 1].clone();
                Arrays.sort(big);
                Arrays.sort(small);
                System.out.printf(
                        Locale.ROOT,
                        "%-40s ratio big/small: median %.1f, min %.1f%n",
                        cases.get(i).name,
                        (double) big[big.length / 2] / Math.max(1, small[small.length / 2]),
                        (double) big[0] / Math.max(1, small[0]));
            }
        } finally {
            server.close();
        }
    }

    enum Layout {
        /** land-events': one part file per batch folder. */
        FOLDER_PER_FILE,
        /** 20 folders of 500 files. */
        TWENTY_FOLDERS;

        Path file(Path events, int i) {
            String folder = this == FOLDER_PER_FILE ? "batch_" + i : "batch_" + (i % 20);
            return new Path(events, folder + "/part-00000-" + i + "-c000.json");
        }
    }

    private static final class Case {
        final String name;
        final Path events;
        final int processed;
        byte[] committed;

        Case(String name, Path events, int processed) {
            this.name = name;
            this.events = events;
            this.processed = processed;
        }

        /** Writes the processed files, commits them, then writes the new ones. */
        static Case prepare(Path events, Layout layout, int processed) throws Exception {
            String where = Storage.isLocal(events) ? "local " : "s3 ";
            Case c = new Case(where + layout, events, processed);
            write(layout, events, 0, processed);
            FilePlanner planner = new FilePlanner(events, ".json");
            planner.restore(null);
            planner.refreshTarget();
            List<FileSplit> all = planner.nextBatch(0, ReadLimit.none());
            if (all.size() != processed) {
                throw new IllegalStateException("planned " + all.size() + " of " + processed);
            }
            planner.commit(all);
            c.committed = planner.committed();
            Thread.sleep(1100); // the new files are newer, to the second
            write(layout, events, processed, NEW);
            return c;
        }

        /** Plans as a run starts: restore, list, one batch of the new files. */
        long plan() throws Exception {
            long start = System.nanoTime();
            FilePlanner planner = new FilePlanner(events, ".json");
            planner.restore(committed);
            planner.refreshTarget();
            List<FileSplit> batch = planner.nextBatch(1, ReadLimit.none());
            long took = (System.nanoTime() - start) / 1_000_000;
            if (batch.size() != NEW) {
                throw new IllegalStateException(name + ": planned " + batch.size() + " files");
            }
            return took;
        }

        private static void write(Layout layout, Path events, int from, int n) throws Exception {
            ExecutorService pool = Executors.newFixedThreadPool(16);
            try {
                List<Future<?>> writes = new ArrayList<>();
                for (int i = from; i < from + n; i++) {
                    Path file = layout.file(events, i);
                    byte[] line = ("{\"event_id\":" + i + "}\n").getBytes(StandardCharsets.UTF_8);
                    writes.add(
                            pool.submit(
                                    () -> {
                                        Storage.replace(file, line);
                                        return null;
                                    }));
                }
                for (Future<?> write : writes) {
                    write.get();
                }
            } finally {
                pool.shutdown();
            }
        }
    }
}
