package org.flinkss.course.demo;

import org.flinkss.course.queries.Api;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.course.queries.EnrichedQuery;
import org.flinkss.course.queries.QueryCatalog;
import org.flinkss.course.queries.ViewThenBuyQuery;
import org.flinkss.course.queries.WindowQuery;
import org.flinkss.course.tables.Customers;
import org.flinkss.runtime.query.OutputMode;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.RowValues;
import org.flinkss.runtime.table.Warehouse;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The demo's topics 11.09 (stream-static and stream-stream joins) and 11.10 (tumbling, sliding and
 * session windows, and the output modes), with the checks that tell their tables are right.
 */
final class JoinsAndWindows {

    private final DemoSession s;

    JoinsAndWindows(DemoSession session) {
        this.s = session;
    }

    void joins() {
        s.header("11.09", "Streaming Joins");
        Customers.land(s.warehouse, List.of("US", "DE", "FR", "IN", "BR"));
        s.say(">>> customers = spark.table(\"customers\")   # 50 customers");
        s.runQuery(new EnrichedQuery(s.options.warehouse(), Api.DATASTREAM));
        s.check(
                "11.09",
                "stream-static left join: every event with its country",
                1000L,
                () ->
                        s.warehouse.sortedValues(QueryCatalog.ENRICHED.table()).stream()
                                .filter(r -> r.get(5) != null)
                                .count());
        s.runQuery(new ViewThenBuyQuery(false, Api.DATASTREAM));
        s.check(
                "11.09",
                "view_then_buy: each buy within 5 minutes after a view of the same user",
                true,
                () -> viewThenBuyHolds());
        if (s.loud) {
            s.out.println(
                    "    view_then_buy has "
                            + s.warehouse.count(QueryCatalog.VIEW_THEN_BUY.table())
                            + " rows");
        }
    }

    void windows() {
        s.header("11.10", "Windowed Aggregations");
        if (s.loud) {
            s.out.println(
                    ">>> display(spark.table(\"events_5min\").orderBy(\"window\").limit(10))");
            s.out.print(s.console.showTable(s.warehouse, QueryCatalog.WIN5.table(), 10));
        }
        s.runQuery(WindowQuery.sliding(Api.DATASTREAM));
        s.runQuery(WindowQuery.sessions(Api.DATASTREAM));
        s.check(
                "11.10",
                "each sliding window = the two 5-minute windows it spans",
                true,
                () -> slidingMatchesTumbling());
        s.check(
                "11.10",
                "sessions last >= 2 minutes and never touch another of the same user",
                true,
                () -> sessionsAreApart());
        outputModes();
    }

    /**
     * "Update mode writes partial results; use foreachBatch + MERGE for it": win5 again, in update
     * mode (MERGEd into its Delta table) and in complete mode, beside the append table, in a folder
     * of their own so that each keeps its checkpoint.
     */
    private void outputModes() {
        // Below the demo's local folder (DemoSession.base).
        Path modes = s.base.resolve("output-modes");
        RunOptions append =
                RunOptions.builder()
                        .base(Storage.location(modes.toFile()))
                        .parallelism(s.parallelism)
                        .printProgress(false)
                        .out(s.out)
                        .build();
        QueryRunner.run(new BronzeQuery(s.options.events()), append);
        RunOptions update =
                RunOptions.builder()
                        .base(Storage.location(modes.toFile()))
                        .parallelism(s.parallelism)
                        .printProgress(false)
                        .out(s.out)
                        .outputMode(OutputMode.UPDATE)
                        .build();
        RunOptions complete =
                RunOptions.builder()
                        .base(Storage.location(modes.resolve("complete").toFile()))
                        .warehouse(append.warehouse())
                        .parallelism(s.parallelism)
                        .printProgress(false)
                        .out(s.out)
                        .outputMode(OutputMode.COMPLETE)
                        .build();
        QueryRunner.run(QueryCatalog.WIN5.create(update, Api.DATASTREAM), update);
        QueryRunner.run(QueryCatalog.SLIDING.create(complete, Api.DATASTREAM), complete);
        List<List<Object>> closed = s.warehouse.sortedValues(QueryCatalog.WIN5.table());
        List<List<Object>> updated =
                new Warehouse(update.warehouse()).sortedValues(QueryCatalog.WIN5.table());
        if (s.loud) {
            s.out.println(
                    ">>> win5 with outputMode(\"update\"): each batch MERGEd into the Delta table"
                            + " events_5min of "
                            + update.warehouse());
            s.out.print(
                    RowValues.grid(
                            List.of("window_start", "window_end", "event_type", "events", "amount"),
                            updated.subList(Math.max(0, updated.size() - 6), updated.size())));
        }
        s.check(
                "11.10",
                "update mode: append's closed windows, plus the open ones, partial",
                true,
                () -> updated.containsAll(closed) && updated.size() > closed.size());
        s.check(
                "11.10",
                "complete mode: every sliding window, the table replaced at each commit",
                true,
                () ->
                        new Warehouse(append.warehouse()).count(QueryCatalog.SLIDING.table())
                                > s.warehouse.count(QueryCatalog.SLIDING.table()));
    }

    private boolean viewThenBuyHolds() {
        Map<Long, List<Object>> bronze = new HashMap<>();
        for (List<Object> row : s.warehouse.sortedValues(BronzeQuery.TABLE)) {
            bronze.put((Long) row.get(0), row);
        }
        List<List<Object>> pairs = s.warehouse.sortedValues(QueryCatalog.VIEW_THEN_BUY.table());
        return !pairs.isEmpty()
                && pairs.stream()
                        .allMatch(
                                p -> {
                                    List<Object> v = bronze.get((Long) p.get(1));
                                    List<Object> b = bronze.get((Long) p.get(2));
                                    long vt = ((Instant) v.get(3)).toEpochMilli();
                                    long bt = ((Instant) b.get(3)).toEpochMilli();
                                    return "view".equals(v.get(2))
                                            && "buy".equals(b.get(2))
                                            && v.get(1).equals(p.get(0))
                                            && b.get(1).equals(p.get(0))
                                            && bt >= vt
                                            && bt <= vt + 5 * 60_000;
                                });
    }

    private boolean slidingMatchesTumbling() {
        Map<String, Long> tumbling = new HashMap<>();
        for (List<Object> r : s.warehouse.sortedValues(QueryCatalog.WIN5.table())) {
            tumbling.put(r.get(0) + "/" + r.get(2), (Long) r.get(3));
        }
        int compared = 0;
        for (List<Object> r : s.warehouse.sortedValues(QueryCatalog.SLIDING.table())) {
            Instant start = (Instant) r.get(0);
            Long first = tumbling.get(start + "/" + r.get(2));
            Long second = tumbling.get(start.plusSeconds(300) + "/" + r.get(2));
            if (first != null && second != null) {
                compared++;
                if (first + second != (Long) r.get(3)) {
                    return false;
                }
            }
        }
        return compared > 50;
    }

    private boolean sessionsAreApart() {
        List<List<Object>> sessions =
                new ArrayList<>(s.warehouse.sortedValues(QueryCatalog.SESSIONS.table()));
        sessions.sort(
                Comparator.<List<Object>, Integer>comparing(r -> (Integer) r.get(2))
                        .thenComparing(r -> (Instant) r.get(0)));
        for (int i = 0; i < sessions.size(); i++) {
            List<Object> r = sessions.get(i);
            if (((Instant) r.get(1)).toEpochMilli() - ((Instant) r.get(0)).toEpochMilli()
                    < 120_000) {
                return false;
            }
            if (i > 0
                    && sessions.get(i - 1).get(2).equals(r.get(2))
                    && !((Instant) r.get(0)).isAfter((Instant) sessions.get(i - 1).get(1))) {
                return false;
            }
        }
        return !sessions.isEmpty();
    }
}
