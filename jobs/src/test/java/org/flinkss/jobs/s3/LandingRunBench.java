package org.flinkss.jobs.s3;

import org.apache.flink.core.fs.Path;

import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.runtime.testing.S3TestServer;
import org.flinkss.testutils.ProjectScripts;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a user waits for (not a test): {@code scripts/flinkss run bronze --base
 * s3://flinkss/<prefix> --quiet}, a whole process from its start to its exit, over a landing prefix
 * holding 10,000 batches bronze has already read, against one holding 10, with 10 new batches in
 * both. S3Proxy is started by {@code scripts/s3 start --backend <backend>} on a free port ({@link
 * S3TestServer}); the runs read a copy of {@code flink-conf/config.yaml} naming that endpoint
 * ({@code FLINK_CONF_DIR}).
 *
 * <p>Each prefix gets its batches in land-events' layout ({@code events/batch_N/part-...json} and
 * {@code _SUCCESS}, one event each, written by {@link EventFiles#writeBatch} from 16 threads), then
 * one untimed bronze run reads them all. Then, {@code repeats} times and interleaved (big prefix,
 * small prefix): 10 new batches are landed (untimed) and the run is timed; each timed run must read
 * exactly 10 rows. So the small prefix holds 10, 20, 30 ... processed batches and the big one
 * 10,000, 10,010 ... The one-minute load average is printed beside each run: the machine is shared.
 *
 * <p>Run (after {@code mvn -B -q -o package -DskipTests}, which also builds the test classes):
 * {@code java -cp <jobs test classpath> org.flinkss.jobs.s3.LandingRunBench
 * [backend=filesystem|transient] [repeats=3] [processed=10000]}. The transient backend gets a 1 GiB
 * server heap unless {@code FLINKSS_S3_HEAP} says otherwise.
 */
public final class LandingRunBench {

    private static final int NEW = 10;
    private static final Pattern ROWS = Pattern.compile("(\\d+) rows? read");

    public static void main(String[] args) throws Exception {
        String backend = args.length > 0 ? args[0] : "filesystem";
        int repeats = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        int processed = args.length > 2 ? Integer.parseInt(args[2]) : 10_000;
        String name = "landing-run-bench-" + backend;
        S3TestServer server = S3TestServer.start(name, backend);
        if (server == null) {
            throw new IllegalStateException("scripts/s3 needs curl");
        }
        try {
            java.nio.file.Path work = ProjectScripts.ROOT.resolve("jobs/target").resolve(name);
            java.nio.file.Path confDir = work.resolve("flink-conf");
            Files.createDirectories(confDir);
            String conf =
                    Files.readString(ProjectScripts.ROOT.resolve("flink-conf/config.yaml"))
                            .replaceAll(
                                    "(?m)^s3\\.endpoint:.*$", "s3.endpoint: " + server.endpoint());
            if (!conf.contains("s3.endpoint: " + server.endpoint())) {
                throw new IllegalStateException("flink-conf/config.yaml has no s3.endpoint line");
            }
            Files.writeString(confDir.resolve("config.yaml"), conf);
            ProjectScripts runs =
                    new ProjectScripts(work.resolve("runs"), name)
                            .env("FLINK_CONF_DIR", confDir.toString())
                            .env("AWS_ACCESS_KEY_ID", "")
                            .env("AWS_SECRET_ACCESS_KEY", "");
            Path root = server.freshPrefix("bench");
            Prefix big = new Prefix("processed " + processed, new Path(root, "big"), processed);
            Prefix small = new Prefix("processed " + NEW, new Path(root, "small"), NEW);
            for (Prefix p : List.of(big, small)) {
                long started = System.nanoTime();
                p.land(p.initial);
                System.out.printf(
                        Locale.ROOT,
                        "%s: landed %d batches in %.1f s%n",
                        p.name,
                        p.initial,
                        (System.nanoTime() - started) / 1e9);
                long read = p.run(runs); // untimed: reads them all
                System.out.printf(Locale.ROOT, "%s: first run read %d rows%n", p.name, read);
                if (read != p.initial) {
                    throw new IllegalStateException(p.name + ": first run read " + read + " rows");
                }
            }
            List<Prefix> cases = List.of(big, small);
            long[][] millis = new long[cases.size()][repeats];
            for (int r = 0; r < repeats; r++) {
                for (int i = 0; i < cases.size(); i++) {
                    Prefix p = cases.get(i);
                    p.land(NEW);
                    String load = loadAverage();
                    long started = System.nanoTime();
                    long read = p.run(runs);
                    millis[i][r] = (System.nanoTime() - started) / 1_000_000;
                    if (read != NEW) {
                        throw new IllegalStateException(p.name + ": run read " + read + " rows");
                    }
                    System.out.printf(
                            Locale.ROOT,
                            "run %d  %-16s + %d new: %6d ms  (load %s)%n",
                            r + 1,
                            p.name,
                            NEW,
                            millis[i][r],
                            load);
                }
            }
            for (int i = 0; i < cases.size(); i++) {
                long[] m = millis[i].clone();
                Arrays.sort(m);
                System.out.printf(
                        Locale.ROOT,
                        "%s %-16s + %d new: min %6d ms, median %6d ms, all %s%n",
                        backend,
                        cases.get(i).name,
                        NEW,
                        m[0],
                        m[m.length / 2],
                        Arrays.toString(millis[i]));
            }
            long[] b = millis[0].clone();
            long[] s = millis[1].clone();
            Arrays.sort(b);
            Arrays.sort(s);
            System.out.printf(
                    Locale.ROOT,
                    "%s whole-run ratio big/small: median %.2f, min %.2f%n",
                    backend,
                    (double) b[b.length / 2] / s[s.length / 2],
                    (double) b[0] / s[0]);
        } finally {
            server.close();
        }
    }

    private static String loadAverage() {
        try {
            return Files.readString(java.nio.file.Path.of("/proc/loadavg")).split(" ")[0];
        } catch (Exception e) {
            return "?";
        }
    }

    private static final class Prefix {
        final String name;
        final Path base;

        /** The batches to land first. */
        final int initial;

        /** The next batch number (and event id). */
        int next;

        Prefix(String name, Path base, int initial) {
            this.name = name;
            this.base = base;
            this.initial = initial;
        }

        /** Lands {@code n} more batches of one event each: batch_<next> and on. */
        void land(int n) throws Exception {
            ExecutorService pool = Executors.newFixedThreadPool(16);
            try {
                List<Future<?>> writes = new ArrayList<>();
                Path events = new Path(base, "events");
                for (int i = next; i < next + n; i++) {
                    int batch = i;
                    writes.add(
                            pool.submit(
                                    () ->
                                            EventFiles.writeBatch(
                                                    events,
                                                    batch,
                                                    EventGenerator.events(batch, 1))));
                }
                for (Future<?> write : writes) {
                    write.get();
                }
            } finally {
                pool.shutdown();
            }
            next += n;
            Thread.sleep(1100); // newer than what was read, to the second
        }

        /** {@code scripts/flinkss run bronze --base <prefix> --quiet}: the rows it read. */
        long run(ProjectScripts runs) {
            ProjectScripts.Result result =
                    runs.script(
                                    Duration.ofMinutes(30),
                                    "flinkss",
                                    "run",
                                    "bronze",
                                    "--base",
                                    base.toString(),
                                    "--quiet")
                            .assertSuccess("run bronze --base " + base);
            long rows = 0;
            Matcher m = ROWS.matcher(result.output());
            while (m.find()) {
                rows += Long.parseLong(m.group(1));
            }
            return rows;
        }
    }
}
