package org.flinkss.jobs.cli;

import org.apache.flink.core.fs.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import org.flinkss.jobs.cli.options.BaseFolder;
import org.flinkss.jobs.cli.options.DataOptions;
import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.ops.QueryCheckpoint;
import org.flinkss.runtime.sink.jdbc.Database;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.time.Watermarks;

import javax.annotation.Nullable;

import java.io.File;
import java.io.IOException;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;

/**
 * One self-contained HTML file (inline SVG, no script, no network) rendered from the progress logs
 * and the tables: for each query, its batches (rows in, rows per second, duration, watermark, state
 * rows); for each windowed table, events and amount per window and key.
 */
@Command(
        name = "report",
        mixinStandardHelpOptions = true,
        description =
                "Write a self-contained HTML report of every query's batches and every windowed"
                        + " table.")
public final class ReportCommand implements Callable<Integer> {

    private static final String[] COLORS = {
        "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"
    };

    @Mixin DataOptions data;

    @Option(
            names = "--out",
            paramLabel = "FILE",
            description = "where to write it (default: <base>/report.html)")
    File out;

    @Override
    public Integer call() throws IOException {
        Path base = data.base();
        if (data.objectStoreBase()) {
            data.initializeStorage();
            BaseFolder.requireForReport(base);
        } else {
            BaseFolder.requireForReport(data.localBase());
        }
        Path file = out != null ? Storage.location(out) : new Path(base, "report.html");
        write(base, data.openWarehouse(), data.existingDatabase(), file);
        System.out.println("report: " + Storage.shown(file));
        return 0;
    }

    /**
     * The report of {@code base} (a local folder or {@code s3://bucket/prefix}), written to {@code
     * file} anywhere: its queries' progress, and the windowed tables of the warehouse and, when
     * there is one, of the SQL database (where update mode keeps them).
     */
    public static void write(Path base, Warehouse warehouse, @Nullable Database database, Path file)
            throws IOException {
        Storage.replaceText(
                file,
                html(Storage.shown(base), QueryCheckpoint.allUnder(base), warehouse, database));
    }

    private static String html(
            String base,
            List<QueryCheckpoint> checkpoints,
            Warehouse warehouse,
            @Nullable Database database)
            throws IOException {
        StringBuilder html = new StringBuilder();
        html.append(
                        "<!DOCTYPE html><html lang=\"en\"><head><meta"
                            + " charset=\"utf-8\"><title>flink-structured-streaming report</title>")
                .append(
                        "<style>body{font-family:sans-serif;margin:2em;color:#222}h2{margin-top:2em;border-bottom:1px"
                            + " solid #ccc}")
                .append(
                        ".charts{display:flex;flex-wrap:wrap;gap:1.5em}figure{margin:0}figcaption{font-size:.9em;color:#555}")
                .append(
                        "table{border-collapse:collapse;font-size:.85em}td,th{border:1px solid"
                                + " #ddd;padding:2px 6px;text-align:right}</style>")
                .append("</head><body><h1>flink-structured-streaming</h1><p>Generated ")
                .append(Instant.now())
                .append(" from ")
                .append(escape(base))
                .append("</p>");
        html.append("<h2>Queries</h2>");
        for (QueryCheckpoint cp : checkpoints) {
            List<ObjectNode> history = cp.progress();
            if (!history.isEmpty()) {
                query(html, cp.query(), history);
            }
        }
        html.append("<h2>Windowed tables</h2>");
        for (String table : warehouse.tables()) {
            var type = warehouse.rowType(table);
            List<String> columns = type.getFieldNames();
            if (isWindowed(columns)) {
                List<List<Object>> rows = warehouse.sortedValues(table);
                windows(html, table + " (" + rows.size() + " windows)", rows);
            }
        }
        if (database != null) {
            try {
                for (String table : database.tables()) {
                    if (isWindowed(database.columns(table))) {
                        List<List<Object>> rows = database.rows(table);
                        windows(
                                html,
                                table
                                        + " (SQL database, update mode: "
                                        + rows.size()
                                        + " windows, the open ones with their counts so far)",
                                rows);
                    }
                }
            } catch (SQLException e) {
                throw new QueryException(
                        "the report cannot read " + database.describe() + ": " + e.getMessage(), e);
            }
        }
        html.append("</body></html>\n");
        return html.toString();
    }

    /** Columns window_start, window_end, a key, events, amount. */
    private static boolean isWindowed(List<String> columns) {
        return columns.size() == 5
                && columns.get(0).equals("window_start")
                && columns.get(1).equals("window_end")
                && columns.get(3).equals("events");
    }

    private static void query(StringBuilder html, String name, List<ObjectNode> history) {
        html.append("<h3>").append(escape(name)).append("</h3><div class=\"charts\">");
        Map<String, List<double[]>> series = new LinkedHashMap<>();
        for (ObjectNode p : history) {
            double batch = p.path("batchId").asDouble();
            series.computeIfAbsent("rows in", k -> new ArrayList<>())
                    .add(new double[] {batch, p.path("numInputRows").asDouble()});
            series.computeIfAbsent("rows/s", k -> new ArrayList<>())
                    .add(new double[] {batch, p.path("processedRowsPerSecond").asDouble()});
            series.computeIfAbsent("duration ms", k -> new ArrayList<>())
                    .add(
                            new double[] {
                                batch, p.path("durationMs").path("triggerExecution").asDouble()
                            });
            long watermark =
                    p.path("sources").path(0).path("watermarkAfter").asLong(Watermarks.NONE);
            if (watermark != Watermarks.NONE) {
                series.computeIfAbsent(
                                "watermark (hours after the first event)", k -> new ArrayList<>())
                        .add(new double[] {batch, (watermark - 1740787200000L) / 3_600_000.0});
            }
            JsonNode ops = p.path("stateOperators");
            if (ops.size() > 0) {
                series.computeIfAbsent("state rows", k -> new ArrayList<>())
                        .add(new double[] {batch, ops.path(0).path("numRowsTotal").asDouble()});
            }
        }
        series.forEach(
                (title, points) ->
                        chart(html, title + " by batch", Map.of(title, points), "batch", true));
        html.append("</div>");
    }

    private static void windows(StringBuilder html, String title, List<List<Object>> rows) {
        Map<String, List<double[]>> events = new TreeMap<>();
        Map<String, List<double[]>> amount = new TreeMap<>();
        for (List<Object> row : rows) {
            double hours = (((Instant) row.get(0)).toEpochMilli() - 1740787200000L) / 3_600_000.0;
            String key = String.valueOf(row.get(2));
            events.computeIfAbsent(key, k -> new ArrayList<>())
                    .add(new double[] {hours, ((Number) row.get(3)).doubleValue()});
            Object a = row.get(4);
            amount.computeIfAbsent(key, k -> new ArrayList<>())
                    .add(new double[] {hours, a == null ? 0 : ((Number) a).doubleValue()});
        }
        html.append("<h3>").append(escape(title)).append("</h3><div class=\"charts\">");
        if (events.size() <= COLORS.length) {
            chart(
                    html,
                    "events per window",
                    events,
                    "window start (hours after 2025-03-01 00:00 UTC)");
            chart(
                    html,
                    "amount per window",
                    amount,
                    "window start (hours after 2025-03-01 00:00 UTC)");
        } else {
            Map<String, List<double[]>> total = new TreeMap<>();
            events.values()
                    .forEach(
                            points ->
                                    points.forEach(
                                            pt ->
                                                    total.computeIfAbsent(
                                                                    "all keys",
                                                                    k -> new ArrayList<>())
                                                            .add(pt)));
            total.get("all keys").sort((x, y) -> Double.compare(x[0], y[0]));
            chart(
                    html,
                    "events per window, " + events.size() + " keys",
                    total,
                    "window start (hours after 2025-03-01 00:00 UTC)");
        }
        html.append("</div>");
    }

    private static void chart(
            StringBuilder html, String title, Map<String, List<double[]>> series, String xLabel) {
        chart(html, title, series, xLabel, false);
    }

    /**
     * A line chart with points, axes and a legend, as inline SVG.
     *
     * @param wholeX the x values are whole numbers (batch ids): the axis is labelled with whole
     *     numbers only
     */
    private static void chart(
            StringBuilder html,
            String title,
            Map<String, List<double[]>> series,
            String xLabel,
            boolean wholeX) {
        int w = 520;
        int h = 260;
        int left = 60;
        int bottom = 40;
        double minX = Double.MAX_VALUE;
        double maxX = -Double.MAX_VALUE;
        double maxY = 0;
        for (List<double[]> points : series.values()) {
            for (double[] p : points) {
                minX = Math.min(minX, p[0]);
                maxX = Math.max(maxX, p[0]);
                maxY = Math.max(maxY, p[1]);
            }
        }
        if (wholeX) {
            minX = Math.floor(minX);
            maxX = Math.ceil(maxX);
        }
        if (minX == maxX) {
            maxX = minX + 1;
        }
        if (maxY == 0) {
            maxY = 1;
        }
        html.append("<figure><svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"")
                .append(w)
                .append("\" height=\"")
                .append(h)
                .append("\" role=\"img\" aria-label=\"")
                .append(escape(title))
                .append("\">")
                .append("<rect x=\"0\" y=\"0\" width=\"")
                .append(w)
                .append("\" height=\"")
                .append(h)
                .append("\" fill=\"#fff\"/>")
                .append(line(left, h - bottom, w - 10, h - bottom))
                .append(line(left, 10, left, h - bottom));
        for (int i = 0; i <= 4; i++) {
            double y = h - bottom - (h - bottom - 10) * i / 4.0;
            html.append(text(left - 5, y + 4, fmt(maxY * i / 4), "end"));
            if (!wholeX) {
                html.append(
                        text(
                                left + (w - 10 - left) * i / 4.0,
                                h - bottom + 15,
                                fmt(minX + (maxX - minX) * i / 4),
                                "middle"));
            }
        }
        if (wholeX) {
            // At most five labels, each a whole batch id at its own place.
            long step = Math.max(1, (long) Math.ceil((maxX - minX) / 4));
            for (long x = (long) minX; x <= maxX; x += step) {
                html.append(
                        text(
                                left + (w - 10 - left) * (x - minX) / (maxX - minX),
                                h - bottom + 15,
                                Long.toString(x),
                                "middle"));
            }
        }
        html.append(text((left + w) / 2.0, h - 5, xLabel, "middle"));
        int s = 0;
        for (Map.Entry<String, List<double[]>> e : series.entrySet()) {
            String color = COLORS[s % COLORS.length];
            StringBuilder path = new StringBuilder();
            for (double[] p : e.getValue()) {
                double x = left + (w - 10 - left) * (p[0] - minX) / (maxX - minX);
                double y = h - bottom - (h - bottom - 10) * p[1] / maxY;
                path.append(path.length() == 0 ? "M" : "L")
                        .append(fmt2(x))
                        .append(',')
                        .append(fmt2(y));
                if (e.getValue().size() <= 60) {
                    html.append("<circle cx=\"")
                            .append(fmt2(x))
                            .append("\" cy=\"")
                            .append(fmt2(y))
                            .append("\" r=\"2.5\" fill=\"")
                            .append(color)
                            .append("\"/>");
                }
            }
            html.append("<path d=\"")
                    .append(path)
                    .append("\" fill=\"none\" stroke=\"")
                    .append(color)
                    .append("\" stroke-width=\"1.5\"/>");
            html.append("<rect x=\"")
                    .append(w - 150)
                    .append("\" y=\"")
                    .append(14 + 16 * s)
                    .append("\" width=\"10\" height=\"10\" fill=\"")
                    .append(color)
                    .append("\"/>");
            html.append(text(w - 135, 23 + 16 * s, e.getKey(), "start"));
            s++;
        }
        html.append("</svg><figcaption>").append(escape(title)).append("</figcaption></figure>");
    }

    private static String line(double x1, double y1, double x2, double y2) {
        return "<line x1=\""
                + x1
                + "\" y1=\""
                + y1
                + "\" x2=\""
                + x2
                + "\" y2=\""
                + y2
                + "\" stroke=\"#888\"/>";
    }

    private static String text(double x, double y, String s, String anchor) {
        return "<text x=\""
                + fmt2(x)
                + "\" y=\""
                + fmt2(y)
                + "\" font-size=\"10\" text-anchor=\""
                + anchor
                + "\">"
                + escape(s)
                + "</text>";
    }

    private static String fmt(double v) {
        return Math.abs(v) >= 1000
                ? String.format(Locale.ROOT, "%,.0f", v)
                : String.format(Locale.ROOT, "%.1f", v);
    }

    private static String fmt2(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;")
                .replace("<", "&lt;")
                .replace(">", "&gt;")
                .replace("\"", "&quot;");
    }
}
