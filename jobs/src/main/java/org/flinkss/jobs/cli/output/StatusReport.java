package org.flinkss.jobs.cli.output;

import org.flinkss.runtime.ops.QueryStatus;
import org.flinkss.runtime.time.WatermarkPolicy;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code status <query>} prints: what the checkpoint was made with, where it stands, what a
 * next run restores, and where each of its tables' rows are.
 */
public final class StatusReport {

    /** How a course query's stateful operator names its API: {@code window[datastream]: ...}. */
    private static final Pattern API = Pattern.compile("\\[(datastream|table)\\]");

    private static final Pattern OUTPUT_MODE =
            Pattern.compile("output mode (append|update|complete)");

    /** The column {@code run bronze --rescued-data} adds to events_bronze. */
    private static final String RESCUED_COLUMN = "_rescued_data ";

    private StatusReport() {}

    /**
     * The report's lines.
     *
     * @param tables where each table's rows are ({@link Tables#where})
     */
    public static List<String> lines(QueryStatus status, Tables tables) {
        List<String> lines = new ArrayList<>();
        lines.add("query " + status.query() + " (checkpoint " + status.checkpoint() + ")");
        if (status.queryId() == null) {
            lines.add(
                    "  reset: no run has claimed this checkpoint since; the next run makes it"
                            + " anew");
            return lines;
        }
        lines.add("  id          " + status.queryId());
        lines.add("  made with   " + madeWith(status));
        lines.add(
                "  warehouse   "
                        + (status.warehouse() == null
                                ? "not recorded yet (the next run records its --warehouse)"
                                : status.warehouse()));
        status.sources().forEach(s -> lines.add("  source      " + s));
        status.stateful().forEach(s -> lines.add("  stateful    " + s));
        lines.add(
                "  last batch  "
                        + (status.lastBatchId() < 0
                                ? "none yet"
                                : status.lastBatchId()
                                        + " at "
                                        + status.lastBatchTime()
                                        + " ("
                                        + status.lastBatchRows()
                                        + " rows read)"));
        lines.add("  watermark   " + (status.watermark() == null ? "none" : status.watermark()));
        if (status.restorePoints().isEmpty()) {
            lines.add("  restore     none: the next run starts from the beginning");
        } else {
            lines.add("  restore     the next run restores the newest of:");
            for (QueryStatus.RestorePoint p : status.restorePoints()) {
                lines.add(
                        "    "
                                + (p.savepoint() ? "savepoint   " : "checkpoint  ")
                                + p.location()
                                + (p.completedMillis() > 0
                                        ? " (" + Instant.ofEpochMilli(p.completedMillis()) + ")"
                                        : ""));
            }
        }
        lines.add("  tables");
        int width = status.tables().stream().mapToInt(String::length).max().orElse(0);
        for (String table : status.tables()) {
            lines.add("    " + pad(table, width) + "  " + tables.where(table));
        }
        return lines;
    }

    /**
     * The API, the output mode and the flags the checkpoint was made with, as its identity records
     * them: a stateful operator names its API and output mode; {@code --rescued-data} adds a column
     * to the table it writes; {@code --watermark-policy} is the conf it keeps (a query with several
     * inputs records it at its first run).
     */
    static String madeWith(QueryStatus status) {
        String stateful = String.join("\n", status.stateful());
        Matcher api = API.matcher(stateful);
        Matcher mode = OUTPUT_MODE.matcher(stateful);
        List<String> parts = new ArrayList<>();
        parts.add(
                api.find()
                        ? "API " + api.group(1)
                        : "API not recorded (no stateful operator: either API runs on it)");
        parts.add("output mode " + (mode.find() ? mode.group(1) : "append"));
        boolean rescued =
                status.columns().values().stream()
                        .flatMap(List::stream)
                        .anyMatch(c -> c.startsWith(RESCUED_COLUMN));
        if (rescued) {
            parts.add("--rescued-data");
        }
        String policy = status.conf().get(WatermarkPolicy.SPARK_CONF);
        if (policy != null) {
            parts.add("--watermark-policy " + policy);
        }
        return String.join(", ", parts);
    }

    private static String pad(String s, int width) {
        return s + " ".repeat(Math.max(0, width - s.length()));
    }
}
