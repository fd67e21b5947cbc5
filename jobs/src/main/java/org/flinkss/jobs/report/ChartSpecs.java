package org.flinkss.jobs.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The charts of a query's batches and of a windowed table, as data for the page's script. A batch
 * axis is a category axis of the batch ids (whole ticks, one bar per batch, so that a query of one
 * batch shows one bar, not a lone dot); a window axis is a time axis; what a query does not have (a
 * watermark, state, quarantined lines) gets no chart.
 */
final class ChartSpecs {

    /** A table with more keys than this is charted as one series, the sum of all keys. */
    static final int MAX_KEYS = 6;

    private static final ObjectMapper JSON = new ObjectMapper();

    private ChartSpecs() {}

    static List<Chart> ofQuery(QueryHistory query) {
        List<Batch> batches = query.batches();
        List<Chart> charts = new ArrayList<>();
        charts.add(
                batchChart(
                        "Rows read per batch",
                        "rows",
                        true,
                        batches,
                        Map.of("rows read", b -> (double) b.inputRows())));
        charts.add(
                batchChart(
                        "Input rate and processing rate per batch",
                        "rows per second",
                        false,
                        batches,
                        ordered(
                                "input rate",
                                Batch::inputRowsPerSecond,
                                "processing rate",
                                Batch::processedRowsPerSecond)));
        charts.add(
                batchChart(
                        "Batch duration",
                        "seconds",
                        false,
                        batches,
                        Map.of("duration", b -> b.durationMs() / 1000.0)));
        // A measure that stayed 0 in every batch gets a sentence (ReportPage), not a flat chart.
        if (positive(query.total(Batch::quarantined))) {
            charts.add(
                    batchChart(
                            "Lines quarantined per batch",
                            "lines",
                            true,
                            batches,
                            Map.of("lines quarantined", b -> number(b.quarantined()))));
        }
        if (positive(query.total(Batch::droppedByWatermark))
                || positive(query.total(Batch::lateRowsKept))) {
            charts.add(
                    batchChart(
                            "Rows dropped by the watermark and late rows kept, per batch",
                            "rows",
                            true,
                            batches,
                            ordered(
                                    "dropped by the watermark",
                                    b -> number(b.droppedByWatermark()),
                                    "late rows kept (_late table)",
                                    b -> number(b.lateRowsKept()))));
        }
        if (query.has(Batch::stateRows)) {
            charts.add(
                    batchChart(
                            "State rows after each batch",
                            "rows in state",
                            true,
                            batches,
                            Map.of("state rows", b -> number(b.stateRows()))));
        }
        // One batch's watermark is one value: the summary says it.
        if (query.has(Batch::watermark) && batches.size() > 1) {
            ObjectNode spec = batchAxis(batches);
            spec.set("y", axis("time", "watermark (UTC)", false));
            ArrayNode data = JSON.createArrayNode();
            batches.forEach(b -> data.add(b.watermark()));
            spec.withArray("series").add(series("watermark", "line", data));
            charts.add(new Chart("Watermark after each batch", spec));
        }
        return charts;
    }

    /** Events and amount per window, by key (or summed over the keys when there are many). */
    static List<Chart> ofTable(WindowedTable table) {
        long keys = table.rows().stream().map(WindowRow::key).distinct().count();
        boolean summed = keys > MAX_KEYS;
        Map<String, TreeMap<Long, double[]>> byKey = new TreeMap<>();
        for (WindowRow row : table.rows()) {
            double[] sums =
                    byKey.computeIfAbsent(summed ? "all keys" : row.key(), k -> new TreeMap<>())
                            .computeIfAbsent(row.start().toEpochMilli(), t -> new double[2]);
            sums[0] += row.events();
            sums[1] += row.amount() == null ? 0 : row.amount();
        }
        String by =
                summed
                        ? ", all " + keys + " " + table.keyColumn() + " values summed"
                        : " by " + table.keyColumn();
        return List.of(
                windowChart("Events per window" + by, "events", true, byKey, 0),
                windowChart("Amount per window" + by, "amount", false, byKey, 1));
    }

    private static Chart windowChart(
            String title,
            String yName,
            boolean integer,
            Map<String, TreeMap<Long, double[]>> byKey,
            int measure) {
        ObjectNode spec = JSON.createObjectNode();
        spec.set("x", axis("time", "window start (UTC)", false));
        spec.set("y", axis("value", yName, integer));
        ArrayNode series = spec.putArray("series");
        byKey.forEach(
                (key, windows) -> {
                    ArrayNode data = JSON.createArrayNode();
                    windows.forEach(
                            (start, sums) ->
                                    data.add(
                                            JSON.createArrayNode()
                                                    .add(start)
                                                    .add(round(sums[measure]))));
                    series.add(series(key, "line", data));
                });
        return new Chart(title, spec);
    }

    private static Chart batchChart(
            String title,
            String yName,
            boolean integer,
            List<Batch> batches,
            Map<String, Function<Batch, Double>> measures) {
        ObjectNode spec = batchAxis(batches);
        spec.set("y", axis("value", yName, integer));
        ArrayNode series = spec.putArray("series");
        measures.forEach(
                (name, measure) -> {
                    ArrayNode data = JSON.createArrayNode();
                    for (Batch b : batches) {
                        Double v = measure.apply(b);
                        if (v == null) {
                            data.addNull();
                        } else {
                            data.add(round(v));
                        }
                    }
                    series.add(series(name, "bar", data));
                });
        return new Chart(title, spec);
    }

    private static ObjectNode batchAxis(List<Batch> batches) {
        ObjectNode spec = JSON.createObjectNode();
        ObjectNode x = axis("category", "batch", true);
        ArrayNode categories = x.putArray("categories");
        batches.forEach(b -> categories.add(Long.toString(b.batchId())));
        spec.set("x", x);
        spec.putArray("series");
        return spec;
    }

    private static ObjectNode axis(String kind, String name, boolean integer) {
        ObjectNode axis = JSON.createObjectNode();
        axis.put("kind", kind);
        axis.put("name", name);
        axis.put("integer", integer);
        return axis;
    }

    private static ObjectNode series(String name, String type, ArrayNode data) {
        ObjectNode s = JSON.createObjectNode();
        s.put("name", name);
        s.put("type", type);
        s.set("data", data);
        return s;
    }

    private static Map<String, Function<Batch, Double>> ordered(
            String first, Function<Batch, Double> a, String second, Function<Batch, Double> b) {
        Map<String, Function<Batch, Double>> measures = new LinkedHashMap<>();
        measures.put(first, a);
        measures.put(second, b);
        return measures;
    }

    private static boolean positive(Long total) {
        return total != null && total > 0;
    }

    private static Double number(Long value) {
        return value == null ? null : value.doubleValue();
    }

    /** Two decimals at most: amounts are money, rates need no more. */
    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
