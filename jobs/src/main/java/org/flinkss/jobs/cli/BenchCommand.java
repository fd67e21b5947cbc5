package org.flinkss.jobs.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.EventJson;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.course.queries.QueryCatalog;
import org.flinkss.course.queries.QueryRequest;
import org.flinkss.course.tables.Customers;
import org.flinkss.jobs.cli.options.ApiOption;
import org.flinkss.jobs.cli.options.CheckpointIntervalOption;
import org.flinkss.jobs.cli.options.Converters;
import org.flinkss.jobs.cli.options.FlinkOptions;
import org.flinkss.jobs.cli.options.OutputModeOption;
import org.flinkss.jobs.cli.options.ParallelismOption;
import org.flinkss.jobs.cli.options.QueryArgument;
import org.flinkss.jobs.cli.output.Stdout;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;

import java.io.BufferedWriter;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * A timed harness: lands N of the course's events (in files of 5,000 by default; not timed), then
 * times one availableNow run of the query from a fresh checkpoint, and prints events per second and
 * peak memory. A benchmark, not a test: run it on a quiet machine.
 */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        description =
                "Time one availableNow run of a query over N landed events; print events/s and peak"
                        + " memory.")
public final class BenchCommand implements Callable<Integer> {

    @Mixin QueryArgument query;
    @Mixin ApiOption api;
    @Mixin ParallelismOption parallelism;
    @Mixin CheckpointIntervalOption checkpointInterval;
    @Mixin OutputModeOption outputMode;
    @Mixin FlinkOptions flink;

    @Option(
            names = "--rescued-data",
            description = "run bronze with its rescued data column (_rescued_data)")
    boolean rescuedData;

    @Option(
            names = "--extra-field",
            description =
                    "land each event with a field that is not in the schema, \"channel\":\"web\"")
    boolean extraField;

    @Option(
            names = "--events",
            defaultValue = "1000000",
            converter = Converters.PositiveInt.class,
            description = "events to land (default: ${DEFAULT-VALUE})")
    int events;

    @Option(
            names = "--files-of",
            defaultValue = "5000",
            converter = Converters.PositiveInt.class,
            description = "events per landed file (default: ${DEFAULT-VALUE})")
    int filesOf;

    @Option(
            names = "--base",
            paramLabel = "DIR",
            converter = Converters.LocalFolder.class,
            description =
                    "work folder: new or empty, or one bench made, whose events, checkpoints and"
                            + " tables are deleted first (default: data/bench)")
    Path base = Paths.get("data", "bench");

    @Override
    public Integer call() throws IOException {
        // Bronze lands the events; the query named is timed after it, in its API and mode.
        QueryCatalog timed = query.query();
        RunOptions withMode = builder().outputMode(outputMode.mode()).build();
        QueryRequest request = QueryRequest.of(withMode, api.api());
        if (timed == QueryCatalog.BRONZE) {
            timed.check(request.withRescuedData(rescuedData));
        } else {
            timed.check(request);
        }
        BenchFolder.prepare(base);
        RunOptions options = builder().build();
        long landStart = System.nanoTime();
        int batch = 0;
        for (long start = 0; start < events; start += filesOf) {
            List<Event> landed =
                    EventGenerator.events(start, (int) Math.min(filesOf, events - start));
            if (extraField) {
                landWithExtraField(
                        Storage.localFile(options.events(), "the landing folder").toPath(),
                        ++batch,
                        landed);
            } else {
                EventFiles.writeBatch(options.events(), ++batch, landed);
            }
        }
        System.out.printf(
                "landed %,d events in %d files in %.1f s%n",
                events, batch, (System.nanoTime() - landStart) / 1e9);

        long started = System.nanoTime();
        long bronzeCpu = processCpuNanos();
        QueryRunner.Result result =
                QueryRunner.run(new BronzeQuery(options.events(), rescuedData), options);
        double seconds = (System.nanoTime() - started) / 1e9;
        long rows = new Warehouse(options.warehouse()).count(BronzeQuery.TABLE);
        if (rows != events) {
            throw new IllegalStateException("bronze has " + rows + " rows, expected " + events);
        }
        System.out.printf(
                "bronze: %,d events in %.2f s (run: restore, read, commit, stop with savepoint) ="
                        + " %,.0f events/s, %d batch(es)%n",
                events, seconds, events / seconds, result.batches());
        long timedCpu = bronzeCpu;
        if (timed.isComposite()) {
            double total = seconds;
            List<Query> layers = timed.createLayers(QueryRequest.of(options, api.api()));
            for (Query layer : layers.subList(1, layers.size())) {
                long layerStart = System.nanoTime();
                QueryRunner.Result r = QueryRunner.run(layer, options);
                double layerSeconds = (System.nanoTime() - layerStart) / 1e9;
                total += layerSeconds;
                System.out.printf(
                        "%s [%s]: %,d rows in %.2f s = %,.0f events/s%n",
                        layer.name(),
                        api.api(),
                        r.numInputRows(),
                        layerSeconds,
                        r.numInputRows() / layerSeconds);
            }
            System.out.printf(
                    "pipeline: %,d events through bronze, silver and gold in %.2f s = %,.0f"
                            + " events/s end to end%n",
                    events, total, events / total);
        } else if (timed != QueryCatalog.BRONZE) {
            if (timed == QueryCatalog.ENRICHED) {
                Customers.land(new Warehouse(options.warehouse()), List.of("US", "DE", "FR"));
            }
            Query q = timed.create(request);
            timedCpu = processCpuNanos();
            long queryStart = System.nanoTime();
            QueryRunner.Result measured = QueryRunner.run(q, withMode);
            double querySeconds = (System.nanoTime() - queryStart) / 1e9;
            if (measured.numInputRows() != events) {
                throw new IllegalStateException(
                        timed + " read " + measured.numInputRows() + " rows, expected " + events);
            }
            System.out.printf(
                    "%s [%s, %s]: %,d events from events_bronze in %.2f s = %,.0f events/s%n",
                    q.name(),
                    api.api(),
                    outputMode.mode().text(),
                    events,
                    querySeconds,
                    events / querySeconds);
        }
        if (timedCpu >= 0) {
            System.out.printf(
                    "cpu of the timed run: %.2f s (user + system, every thread of the process)%n",
                    (processCpuNanos() - timedCpu) / 1e9);
        }
        System.out.printf("peak heap %d MiB, peak process RSS %s%n", peakHeapMiB(), peakRss());
        return 0;
    }

    private RunOptions.Builder builder() {
        // Its results on stdout; what the runs note (the REST address among them) on stderr.
        return flink.applyTo(
                checkpointInterval.applyTo(
                        RunOptions.builder()
                                .base(Storage.location(base.toFile()))
                                .parallelism(parallelism.orElse(2))
                                .printProgress(false)
                                .announce(true)
                                .out(Stdout.utf8ErrStream())));
    }

    /** A new source field that the schema does not know: skipped by it, or rescued. */
    private static void landWithExtraField(Path eventsDir, int batch, List<Event> landed)
            throws IOException {
        Path dir = Files.createDirectories(eventsDir.resolve("batch_" + batch));
        try (BufferedWriter out =
                Files.newBufferedWriter(
                        dir.resolve("part-00000-c000.json"), StandardCharsets.UTF_8)) {
            for (Event event : landed) {
                String json = EventJson.toJson(event);
                out.append(json, 0, json.length() - 1).append(",\"channel\":\"web\"}\n");
            }
        }
    }

    /**
     * The CPU time of the whole process so far (every thread: tasks, JIT, GC), or -1 where the JVM
     * does not tell. Unlike wall time it hardly moves when other processes share the cores, so runs
     * on a busy machine can still be compared.
     */
    static long processCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean) {
            return ((com.sun.management.OperatingSystemMXBean)
                            ManagementFactory.getOperatingSystemMXBean())
                    .getProcessCpuTime();
        }
        return -1;
    }

    static long peakHeapMiB() {
        long peak = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                peak += pool.getPeakUsage().getUsed();
            }
        }
        return peak >> 20;
    }

    static String peakRss() {
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    long kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
                    return (kb >> 10) + " MiB";
                }
            }
        } catch (IOException | NumberFormatException e) {
            // not Linux
        }
        return "unknown";
    }
}
