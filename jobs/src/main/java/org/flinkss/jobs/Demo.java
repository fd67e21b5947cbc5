package org.flinkss.jobs;

import org.flinkss.query.QueryRunner;
import org.flinkss.query.RunOptions;
import org.flinkss.table.Warehouse;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/**
 * The module walkthrough: replays the course's cells topic by topic on an embedded Flink, in a
 * fresh folder, printing what each cell prints and whether it matches what the course expects.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Replay the course module topic by topic, comparing each result with the course's.")
public final class Demo implements Callable<Integer> {

    @Option(names = "--topic", paramLabel = "11.NN", description = "run one topic (its earlier topics run quietly first)")
    String topic;

    @Option(names = "--base", paramLabel = "DIR", description = "where to work (default: a new folder data/demo-<time>)")
    Path base;

    @Option(names = "--parallelism", defaultValue = "2", description = "parallelism of every run (default: ${DEFAULT-VALUE})")
    int parallelism;

    private final List<String[]> results = new ArrayList<>();
    private boolean loud = true;
    private RunOptions options;
    private Warehouse warehouse;
    private QueryRunner.Result last;

    @Override
    public Integer call() {
        if (base == null) {
            base = Paths.get("data", "demo-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        }
        options = RunOptions.builder().base(base).parallelism(parallelism).printProgress(false).build();
        warehouse = new Warehouse(options.warehouse());
        Map<String, Runnable> topics = topics();
        if (topic != null && !topics.containsKey(topic)) {
            throw new IllegalArgumentException("no topic '" + topic + "' in the demo: the topics are " + String.join(", ", topics.keySet()));
        }
        System.out.println("Working in " + base.toAbsolutePath());
        long started = System.nanoTime();
        for (Map.Entry<String, Runnable> t : topics.entrySet()) {
            loud = topic == null || topic.equals(t.getKey());
            t.getValue().run();
            if (t.getKey().equals(topic)) {
                break;
            }
        }
        long failed = results.stream().filter(r -> !r[3].equals("matches")).count();
        System.out.println();
        System.out.println("Summary (" + String.format("%.1f", (System.nanoTime() - started) / 1e9) + " s)");
        for (String[] r : results) {
            System.out.printf("  %-6s %-58s %s%n", r[0], r[1], r[3].equals("matches") ? "ok" : "DIFFERS: " + r[2]);
        }
        System.out.println("  " + (results.size() - failed) + " of " + results.size() + " results match the course.");
        return failed == 0 ? 0 : 1;
    }

    private Map<String, Runnable> topics() {
        Map<String, Runnable> topics = new LinkedHashMap<>();
        topics.put("11.03", this::sourcesAndSinks);
        topics.put("11.04", this::microBatches);
        topics.put("11.06", this::checkpointing);
        return topics;
    }

    private void sourcesAndSinks() {
        header("11.03", "Sources and Sinks");
        land(1, 0);
        runBronze();
        check("11.03", "print(spark.table(\"events_bronze\").count())", 500L, () -> warehouse.count(BronzeQuery.TABLE));
    }

    private void microBatches() {
        header("11.04", "Micro-Batch Processing");
        land(2, 500);
        runBronze();
        check("11.04", "print(p[\"batchId\"], p[\"numInputRows\"])", "1 500",
                () -> last.lastProgress.path("batchId").asLong() + " " + last.lastProgress.path("numInputRows").asLong());
        check("11.04", "print(spark.table(\"events_bronze\").count())", 1000L, () -> warehouse.count(BronzeQuery.TABLE));
    }

    private void checkpointing() {
        header("11.06", "Checkpointing");
        check("11.06", "print(run_bronze())   # after batches 1 and 2", 1000L, () -> {
            runBronze();
            return warehouse.count(BronzeQuery.TABLE);
        });
        check("11.06", "print(run_bronze())   # nothing new, nothing reprocessed", 1000L, () -> {
            runBronze();
            return warehouse.count(BronzeQuery.TABLE);
        });
        check("11.06", "numInputRows of the rerun (no new batch id)", 0L, () -> last.lastProgress.path("numInputRows").asLong());
    }

    private void header(String id, String title) {
        if (loud) {
            System.out.println();
            System.out.println("== " + id + " " + title + " ==");
        }
    }

    private void land(int batch, long start) {
        Main.LandEventsCommand.land(options.events(), batch, start, 500, "datastream");
        if (loud) {
            System.out.println(">>> land_events(" + batch + ", " + start + ")");
        }
    }

    private void runBronze() {
        last = QueryRunner.run(new BronzeQuery(options.events()), options);
        if (loud) {
            System.out.println(">>> run bronze (availableNow): " + Main.summary("bronze", last));
        }
    }

    private void check(String id, String cell, Object expected, Supplier<Object> actual) {
        Object value = actual.get();
        boolean match = Objects.equals(String.valueOf(expected), String.valueOf(value));
        if (loud) {
            System.out.println(">>> " + cell);
            System.out.println(value);
            System.out.println("    course: " + expected + (match ? "  (matches)" : "  (DIFFERS)"));
            results.add(new String[] {id, cell, String.valueOf(value), match ? "matches" : "differs"});
        }
    }
}
