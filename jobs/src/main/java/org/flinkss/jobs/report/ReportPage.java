package org.flinkss.jobs.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import javax.annotation.Nullable;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

/**
 * Renders a {@link ReportData} as one self-contained HTML page: the summaries and row samples as
 * HTML, the charts as JSON specifications that the page's script draws with the inlined ECharts.
 * Nothing is fetched: the page's Content-Security-Policy forbids any request, and everything from
 * the data is escaped ({@link Html}).
 */
public final class ReportPage {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final DateTimeFormatter UTC =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'", Locale.ROOT)
                    .withZone(ZoneOffset.UTC);

    private final StringBuilder html = new StringBuilder();
    private final ArrayNode charts = JSON.createArrayNode();

    private ReportPage() {}

    /** The page of {@code data}. */
    public static String render(ReportData data) {
        return new ReportPage().page(data);
    }

    private String page(ReportData data) {
        html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                // Self-contained: the browser refuses any request, scripts and styles are inline.
                .append("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src")
                .append(" 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline';")
                .append(" img-src data:\">")
                .append("<meta name=\"viewport\" content=\"width=device-width\">")
                .append("<title>flink-structured-streaming report</title><style>")
                .append(ReportAssets.style())
                .append(
                        "</style></head><body><h1>flink-structured-streaming</h1><p"
                                + " class=\"meta\">")
                .append("Generated ")
                .append(UTC.format(data.generated()))
                .append(" from ")
                .append(Html.escape(data.base()))
                .append("</p>");
        queries(data.queries());
        samples("Late rows", "late rows kept by the queries' watermarks", data.lateRows());
        samples(
                "Quarantined lines",
                "landed lines that were not JSON or did not fit the schema",
                data.quarantine());
        expectations(data.expectations());
        samples("Rejected rows", "rows left out by an expectation's drop rule", data.rejected());
        windowedTables(data.windowedTables());
        ObjectNode json = JSON.createObjectNode();
        json.set("charts", charts);
        html.append("<script type=\"application/json\" id=\"report-data\">")
                .append(Html.scriptJson(json.toString()))
                .append("</script>\n<script>")
                .append(ReportAssets.echarts())
                .append("</script>\n<script>")
                .append(ReportAssets.script())
                .append("</script></body></html>\n");
        return html.toString();
    }

    private void queries(List<QueryHistory> queries) {
        html.append("<h2>Queries</h2>");
        if (queries.isEmpty()) {
            html.append("<p class=\"empty\">No query has committed a batch here.</p>");
            return;
        }
        html.append("<table class=\"summary\"><thead><tr><th>query</th><th>batches</th>")
                .append("<th>rows read</th><th>last run</th><th>watermark</th>")
                .append("<th>state rows</th><th>dropped by the watermark</th>")
                .append("<th>late rows kept</th><th>lines quarantined</th></tr></thead><tbody>");
        for (QueryHistory q : queries) {
            Batch last = q.last();
            html.append("<tr><td class=\"name\">")
                    .append(Html.escape(q.name()))
                    .append("</td>")
                    .append(cell(Long.toString(q.batches().size())))
                    .append(cell(count(q.rows())))
                    .append(cell(time(q.lastRun())))
                    .append(cell(last.watermark() == null ? "none" : time(last.watermark())))
                    .append(cell(count(last.stateRows())))
                    .append(cell(count(q.total(Batch::droppedByWatermark))))
                    .append(cell(count(q.total(Batch::lateRowsKept))))
                    .append(cell(count(q.total(Batch::quarantined))))
                    .append("</tr>");
        }
        html.append("</tbody></table>");
        for (QueryHistory q : queries) {
            html.append("<h3>").append(Html.escape(q.name())).append("</h3>");
            html.append("<p class=\"meta\">")
                    .append(q.batches().size() == 1 ? "1 batch" : q.batches().size() + " batches")
                    .append(", ")
                    .append(count(q.rows()))
                    .append(" rows read; last batch id ")
                    .append(q.last().batchId())
                    .append(
                            zero(
                                    q.total(Batch::droppedByWatermark),
                                    "no row dropped by the watermark"))
                    .append(zero(q.total(Batch::lateRowsKept), "no late row kept"))
                    .append(zero(q.total(Batch::quarantined), "no line quarantined"))
                    .append("</p>");
            charts(q.name(), ChartSpecs.ofQuery(q));
        }
    }

    /** Lakeflow's data quality: each rule's passed and failed rows over the query's batches. */
    private void expectations(List<ExpectationTally> tallies) {
        html.append("<h2>Expectations</h2>");
        if (tallies.isEmpty()) {
            html.append("<p class=\"empty\">No query has run with expectations (--expect).</p>");
            return;
        }
        html.append("<table class=\"summary\"><thead><tr><th>query</th><th>table</th>")
                .append("<th>rule</th><th>action</th><th>rows passed</th><th>rows failed</th>")
                .append("<th>batches</th></tr></thead><tbody>");
        for (ExpectationTally t : tallies) {
            html.append("<tr><td class=\"name\">")
                    .append(Html.escape(t.query()))
                    .append("</td>")
                    .append(cell(t.table()))
                    .append(cell(t.rule()))
                    .append(cell(t.action()))
                    .append(cell(count(t.passed())))
                    .append(cell(count(t.failed())))
                    .append(cell(Integer.toString(t.batches())))
                    .append("</tr>");
        }
        html.append("</tbody></table>");
    }

    private void samples(String title, String what, List<RowSample> samples) {
        html.append("<h2>").append(title).append("</h2>");
        if (samples.isEmpty()) {
            html.append("<p class=\"empty\">No table of ").append(what).append(".</p>");
            return;
        }
        for (RowSample sample : samples) {
            html.append("<h3>")
                    .append(Html.escape(sample.table()))
                    .append(" (")
                    .append(count(sample.total()))
                    .append(sample.total() == 1 ? " row" : " rows")
                    .append(")</h3>");
            if (sample.total() == 0) {
                html.append("<p class=\"empty\">no rows</p>");
                continue;
            }
            html.append("<table class=\"rows\"><thead><tr>");
            sample.columns()
                    .forEach(c -> html.append("<th>").append(Html.escape(c)).append("</th>"));
            html.append("</tr></thead><tbody>");
            for (List<String> row : sample.rows()) {
                html.append("<tr>");
                // A long value (a quarantined line, a reason) wraps; a short one never does.
                row.forEach(
                        v ->
                                html.append(v.length() > 40 ? "<td class=\"long\">" : "<td>")
                                        .append(Html.escape(v))
                                        .append("</td>"));
                html.append("</tr>");
            }
            html.append("</tbody></table>");
            if (sample.total() > sample.rows().size()) {
                html.append("<p class=\"meta\">the first ")
                        .append(sample.rows().size())
                        .append(" of ")
                        .append(count(sample.total()))
                        .append(" (all of them: table export ")
                        .append(Html.escape(sample.table()))
                        .append(" --csv)</p>");
            }
        }
    }

    private void windowedTables(List<WindowedTable> tables) {
        html.append("<h2>Windowed tables</h2>");
        if (tables.isEmpty()) {
            html.append("<p class=\"empty\">No windowed table here.</p>");
            return;
        }
        for (WindowedTable table : tables) {
            int windows = table.rows().size();
            String count = count(windows) + (windows == 1 ? " window" : " windows");
            html.append("<h3>")
                    .append(Html.escape(table.name()))
                    .append(
                            table.inDatabase()
                                    ? " (SQL database, update mode: "
                                            + count
                                            + ", the open ones with their counts so far)"
                                    : " (" + count + ")")
                    .append("</h3>");
            if (windows == 0) {
                html.append("<p class=\"empty\">no rows</p>");
            } else {
                charts(table.name(), ChartSpecs.ofTable(table));
            }
        }
    }

    /** The charts of one query or table ({@code of}, which their specifications name too). */
    private void charts(String of, List<Chart> list) {
        html.append("<div class=\"charts\">");
        for (Chart chart : list) {
            String id = "chart-" + (charts.size() + 1);
            ObjectNode spec = chart.spec().deepCopy();
            spec.put("id", id);
            spec.put("title", chart.title());
            spec.put("of", of);
            charts.add(spec);
            html.append("<figure><figcaption>")
                    .append(Html.escape(chart.title()))
                    .append("</figcaption><div class=\"chart\" id=\"")
                    .append(id)
                    .append("\" role=\"img\" aria-label=\"")
                    .append(Html.escape(chart.title()))
                    .append("\"></div></figure>");
        }
        html.append("</div>");
    }

    /** {@code "; " + what} when a measure the query has stayed 0 (it then has no chart). */
    private static String zero(@Nullable Long total, String what) {
        return total != null && total == 0 ? "; " + what : "";
    }

    private static String cell(String text) {
        return "<td>" + Html.escape(text) + "</td>";
    }

    private static String count(@Nullable Long n) {
        return n == null ? "–" : String.format(Locale.ROOT, "%,d", n);
    }

    private static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    private static String time(@Nullable Instant t) {
        return t == null ? "–" : UTC.format(t);
    }

    private static String time(long epochMillis) {
        return UTC.format(Instant.ofEpochMilli(epochMillis));
    }
}
