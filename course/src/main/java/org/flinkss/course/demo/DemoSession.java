package org.flinkss.course.demo;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import org.flinkss.course.event.LandEvents;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * What the demo's topics share while they run: the folder and the options of the runs, the
 * warehouse, the last run of bronze, whether the current topic is shown (the topics before the one
 * asked for run quietly), and the checks shown so far. The cells a topic prints (landing events, a
 * run, a check against the course's value) are here, once.
 */
final class DemoSession {

    // The demo works in a local folder (demo --base takes a folder): it lists, rewrites and shows
    // files there as a user would, so java.nio rather than a storage location.
    final Path base;
    final int parallelism;
    final RunOptions options;
    final Warehouse warehouse;
    final DemoConsole console;
    final PrintStream out;

    /** Whether the topic that runs now is shown. */
    boolean loud = true;

    /** The last run of bronze. */
    QueryRunner.Result last;

    private final List<DemoScenario.Check> checks = new ArrayList<>();

    DemoSession(Path base, int parallelism, DemoConsole console) {
        this.base = base;
        this.parallelism = parallelism;
        this.console = console;
        this.out = console.out();
        this.options =
                RunOptions.builder()
                        .base(Storage.location(base.toFile()))
                        .parallelism(parallelism)
                        .printProgress(false)
                        .out(out)
                        .build();
        this.warehouse = new Warehouse(options.warehouse());
    }

    List<DemoScenario.Check> checks() {
        return List.copyOf(checks);
    }

    void header(String id, String title) {
        if (loud) {
            out.println();
            out.println("== " + id + " " + title + " ==");
        }
    }

    /** A topic the demo explains rather than runs. */
    void concept(String id, String title, String how) {
        header(id, title + " (concept)");
        if (loud) {
            out.println("    " + how);
        }
    }

    /** A line of its own, when the topic is shown. */
    void say(String line) {
        if (loud) {
            out.println(line);
        }
    }

    /** The course's {@code land_events(batch, start)}: 500 events. */
    void land(int batch, long start) {
        LandEvents.withDataStream(
                StreamExecutionEnvironment.getExecutionEnvironment(),
                options.events(),
                batch,
                start,
                500);
        say(">>> land_events(" + batch + ", " + start + ")");
    }

    /** The course's {@code run_bronze()}. */
    void runBronze() {
        last = QueryRunner.run(new BronzeQuery(options.events()), options);
        say(">>> run bronze (availableNow): " + console.runSummary(BronzeQuery.NAME, last));
    }

    QueryRunner.Result runQuery(Query query) {
        QueryRunner.Result result = QueryRunner.run(query, options);
        say(
                ">>> run "
                        + query.name()
                        + " (availableNow): "
                        + console.runSummary(query.name(), result));
        return result;
    }

    /** A cell of topic {@code id}, its value, and whether it is the course's. */
    void check(String id, String cell, Object expected, Supplier<Object> actual) {
        Object value = actual.get();
        boolean match = Objects.equals(String.valueOf(expected), String.valueOf(value));
        if (loud) {
            out.println(">>> " + cell);
            out.println(value);
            out.println("    course: " + expected + (match ? "  (matches)" : "  (DIFFERS)"));
            checks.add(new DemoScenario.Check(id, cell, String.valueOf(value), match));
        }
    }

    static long watermarkAfter(QueryRunner.Result result) {
        return result.lastProgress.path("sources").path(0).path("watermarkAfter").asLong();
    }
}
