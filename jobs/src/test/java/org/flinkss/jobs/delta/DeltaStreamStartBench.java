package org.flinkss.jobs.delta;

import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Measurement, not a test (not run by the build): issue 12's "a 10,000-version table read as a
 * stream starts a run as fast as a 10-version one", timed as a user sees it, from JVM start to
 * exit. Two bases get the same 500 landed events and one {@code run bronze}; then {@code
 * events_bronze} gets empty commits (another app id, as a second writer's batches would be) until
 * it has 10 versions in one base and {@code --versions} in the other. Each round resets {@code
 * silver} in both (untimed) and times {@code scripts/flinkss run silver} in each, in alternating
 * order: the first run of a new stream over the table, which starts from no position (the snapshot
 * at the newest version) and so has the most of the log to read. Later runs restore a position and
 * read log entries by name ({@code DeltaPlannerStartupBench}).
 *
 * <p>Run from the project root after {@code mvn -DskipTests package}: {@code java -cp
 * jobs/target/flinkss-jobs.jar jobs/src/test/java/org/flinkss/jobs/delta/DeltaStreamStartBench.java
 * [--versions N] [--rounds N] [--work DIR]}.
 *
 * <p>Measured 2026-12-01 10:40 UTC (2 cores, load 2 to 3.5, main at a9bbb66, 7 interleaved rounds):
 * {@code run silver} from JVM start to exit over 10 versions 3.11 to 3.71 s (median 3.63 s, CPU
 * 5.87 s), over 10,000 versions 3.40 to 4.02 s (median 3.64 s, CPU 5.96 s): ratio 1.004 in wall
 * time, 1.015 in CPU. The 10,000 empty commits took 271 s to make (load ~15). Under load 15 to 30
 * the same bench gave 0.98 and 1.06 (CPU): the difference is in the noise.
 */
public final class DeltaStreamStartBench {

    private static final Path ROOT = Path.of("").toAbsolutePath();
    private static final String FLINKSS = ROOT.resolve("scripts/flinkss").toString();

    public static void main(String[] args) throws Exception {
        int versions = 10_000;
        int rounds = 7;
        Path work = ROOT.resolve("data/delta-stream-start-bench");
        for (int i = 0; i < args.length; i += 2) {
            switch (args[i]) {
                case "--versions" -> versions = Integer.parseInt(args[i + 1]);
                case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
                case "--work" -> work = Path.of(args[i + 1]).toAbsolutePath();
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        Path small = base(work.resolve("v10"), 10);
        Path large = base(work.resolve("v" + versions), versions);
        List<double[]> smallSeconds = new ArrayList<>();
        List<double[]> largeSeconds = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            resetSilver(small);
            resetSilver(large);
            boolean smallFirst = round % 2 == 0;
            double[] first = timedSilver(smallFirst ? small : large);
            double[] second = timedSilver(smallFirst ? large : small);
            smallSeconds.add(smallFirst ? first : second);
            largeSeconds.add(smallFirst ? second : first);
            System.out.printf(
                    "round %d: 10 versions %.2f s (CPU %.2f s), %d versions %.2f s (CPU %.2f s)%n",
                    round,
                    smallSeconds.get(round)[0],
                    smallSeconds.get(round)[1],
                    versions,
                    largeSeconds.get(round)[0],
                    largeSeconds.get(round)[1]);
        }
        for (int i = 0; i < 2; i++) {
            double s = median(smallSeconds, i);
            double l = median(largeSeconds, i);
            System.out.printf(
                    "median %s: 10 versions %.2f s, %d versions %.2f s, ratio %.3f%n",
                    i == 0 ? "wall" : "CPU (user + system)", s, versions, l, l / s);
        }
    }

    /** A base with 500 events through bronze, its events_bronze table at {@code versions}. */
    private static Path base(Path base, int versions) throws Exception {
        String table = base.resolve("warehouse/events_bronze").toUri().toString();
        if (Files.isDirectory(base.resolve("warehouse/events_bronze/_delta_log"))) {
            long have = DeltaTable.forPath(table).version() + 1;
            if (have == versions) {
                System.out.printf("%s: %d versions (kept from an earlier run)%n", base, have);
                return base;
            }
            throw new IllegalStateException(
                    base
                            + " holds a table of "
                            + have
                            + " versions, not "
                            + versions
                            + ": remove it");
        }
        Files.createDirectories(base);
        cli(base, "land-events", "--batch", "1", "--start", "0", "--n", "500");
        cli(base, "run", "bronze", "--quiet");
        DeltaTable t = DeltaTable.forPath(table);
        long start = System.nanoTime();
        long have = t.version() + 1;
        for (long b = 0; have < versions; b++, have++) {
            t.append("delta-stream-start-bench", b, List.<DataFile>of());
        }
        System.out.printf(
                "%s: %d versions (%.0f s of empty commits)%n",
                base, t.version() + 1, (System.nanoTime() - start) / 1e9);
        return base;
    }

    /** A new stream: silver's checkpoint (if any) deleted and its tables emptied. */
    private static void resetSilver(Path base) throws IOException, InterruptedException {
        if (Files.isDirectory(base.resolve("_cp/silver"))) {
            cli(base, "reset", "silver");
        }
    }

    /** Wall and CPU seconds (user + system, from GNU time) of {@code run silver}. */
    private static double[] timedSilver(Path base) throws IOException, InterruptedException {
        Path times = base.resolve("time.txt");
        long start = System.nanoTime();
        cli(
                base,
                "/usr/bin/time",
                "-f",
                "%U %S",
                "-o",
                times.toString(),
                FLINKSS,
                "run",
                "silver",
                "--quiet");
        double wall = (System.nanoTime() - start) / 1e9;
        String[] cpu = Files.readString(times).trim().split("\\s+");
        return new double[] {wall, Double.parseDouble(cpu[0]) + Double.parseDouble(cpu[1])};
    }

    /** {@code scripts/flinkss <command> <args> --base <base>}, failing on a non-zero exit. */
    private static void cli(Path base, String... command) throws IOException, InterruptedException {
        List<String> line = new ArrayList<>();
        if (!command[0].startsWith("/")) {
            line.add(FLINKSS);
        }
        Collections.addAll(line, command);
        line.add("--base");
        line.add(base.toString());
        Process p =
                new ProcessBuilder(line)
                        .directory(ROOT.toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(
                                ProcessBuilder.Redirect.appendTo(
                                        base.resolve("bench.log").toFile()))
                        .start();
        if (p.waitFor() != 0) {
            throw new IllegalStateException(
                    String.join(" ", line)
                            + " exited "
                            + p.exitValue()
                            + ": see "
                            + base
                            + "/bench.log");
        }
    }

    private static double median(List<double[]> values, int column) {
        List<Double> sorted = new ArrayList<>();
        values.forEach(v -> sorted.add(v[column]));
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }
}
