package org.flinkss.jobs;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.EventJson;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.course.queries.Pipeline;
import org.flinkss.course.queries.Queries;
import org.flinkss.runtime.checkpoint.Folders;
import org.flinkss.runtime.query.OutputMode;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.trigger.Trigger;

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
public final class Bench implements Callable<Integer> {

    @Parameters(
            paramLabel = "QUERY",
            description =
                    "the query to time: bronze, or one that reads bronze (win5, sliding, sessions,"
                            + " dedup, view-then-buy, enriched ...)")
    String query;

    @Option(
            names = "--api",
            defaultValue = "datastream",
            description = "datastream or table (default: ${DEFAULT-VALUE})")
    String api;

    @Option(names = "--outer", description = "view-then-buy: the left outer join")
    boolean outer;

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
            description = "events to land (default: ${DEFAULT-VALUE})")
    int events;

    @Option(
            names = "--files-of",
            defaultValue = "5000",
            description = "events per landed file (default: ${DEFAULT-VALUE})")
    int filesOf;

    @Option(
            names = "--parallelism",
            defaultValue = "2",
            description = "parallelism (default: ${DEFAULT-VALUE})")
    int parallelism;

    @Option(
            names = "--checkpoint-interval",
            paramLabel = "DURATION",
            description = "checkpoint cadence (default: the run's)")
    String checkpointInterval;

    @Option(
            names = "--output-mode",
            defaultValue = "append",
            description = "window queries: append, update or complete (default: ${DEFAULT-VALUE})")
    String outputMode;

    @Option(
            names = "--base",
            paramLabel = "DIR",
            description = "work folder, emptied first (default: data/bench)")
    Path base = Paths.get("data", "bench");

    @Override
    public Integer call() throws IOException {
        Folders.deleteRecursively(base);
        RunOptions options = builder().build();
        long landStart = System.nanoTime();
        int batch = 0;
        for (long start = 0; start < events; start += filesOf) {
            List<Event> landed =
                    EventGenerator.events(start, (int) Math.min(filesOf, events - start));
            if (extraField) {
                landWithExtraField(options.events(), ++batch, landed);
            } else {
                EventFiles.writeBatch(options.events(), ++batch, landed);
            }
        }
        System.out.printf(
                "landed %,d events in %d files in %.1f s%n",
                events, batch, (System.nanoTime() - landStart) / 1e9);

        long started = System.nanoTime();
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
        if (query.equals(Pipeline.NAME)) {
            double total = seconds;
            for (Query layer : Pipeline.layers(options, api, rescuedData).subList(1, 3)) {
                long layerStart = System.nanoTime();
                QueryRunner.Result r = QueryRunner.run(layer, options);
                double layerSeconds = (System.nanoTime() - layerStart) / 1e9;
                total += layerSeconds;
                System.out.printf(
                        "%s [%s]: %,d rows in %.2f s = %,.0f events/s%n",
                        layer.name(),
                        api,
                        r.numInputRows(),
                        layerSeconds,
                        r.numInputRows() / layerSeconds);
            }
            System.out.printf(
                    "pipeline: %,d events through bronze, silver and gold in %.2f s = %,.0f"
                            + " events/s end to end%n",
                    events, total, events / total);
        } else if (!query.equals(BronzeQuery.NAME)) {
            if (query.equals("enriched")) {
                Customers.land(new Warehouse(options.warehouse()), List.of("US", "DE", "FR"));
            }
            RunOptions withMode = builder().outputMode(OutputMode.parse(outputMode)).build();
            Query q = Queries.create(query, withMode, api, outer);
            long queryStart = System.nanoTime();
            QueryRunner.Result timed = QueryRunner.run(q, withMode);
            double querySeconds = (System.nanoTime() - queryStart) / 1e9;
            if (timed.numInputRows() != events) {
                throw new IllegalStateException(
                        query + " read " + timed.numInputRows() + " rows, expected " + events);
            }
            System.out.printf(
                    "%s [%s, %s]: %,d events from events_bronze in %.2f s = %,.0f events/s%n",
                    query, api, outputMode, events, querySeconds, events / querySeconds);
        }
        System.out.printf("peak heap %d MiB, peak process RSS %s%n", peakHeapMiB(), peakRss());
        return 0;
    }

    private RunOptions.Builder builder() {
        RunOptions.Builder b =
                RunOptions.builder().base(base).parallelism(parallelism).printProgress(false);
        if (checkpointInterval != null) {
            b.checkpointInterval(Trigger.parseDuration(checkpointInterval));
        }
        return b;
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
