package org.flinkss.jobs.cli.output;

import com.fasterxml.jackson.databind.node.ObjectNode;

import org.flinkss.runtime.progress.ProgressListener;
import org.flinkss.runtime.progress.SourcePlan;

import java.io.PrintStream;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * What {@code run} prints while it runs. {@code --progress human} (the default): the plan of each
 * source, then one line per committed batch,
 *
 * <pre>
 * plan for bronze: 12 batches, 12 files, 6.1 KB (source events, maxFilesPerTrigger=1)
 * batch 3/12  500 rows  412 rows/s  elapsed 4.1 s  id 2
 * </pre>
 *
 * with the query's watermark on stateful queries, and without a total ({@code batch 3}) when the
 * run has none (a processing-time trigger). {@code --progress json}: each batch's progress object,
 * as earlier versions printed it, the plan on stderr.
 */
public final class ProgressLines implements ProgressListener {

    /** What Spark prints as the watermark of a query that has none. */
    private static final String NO_WATERMARK = "1970-01-01T00:00:00.000Z";

    private final PrintStream out;
    private final LongSupplier nanoClock;
    private final long started;
    private final Map<String, Long> planned = new HashMap<>();
    private final Map<String, Integer> printed = new HashMap<>();

    ProgressLines(PrintStream out, LongSupplier nanoClock) {
        this.out = out;
        this.nanoClock = nanoClock;
        this.started = nanoClock.getAsLong();
    }

    /** The plan and one line per batch, on {@code out}. */
    public static ProgressListener human(PrintStream out) {
        return new ProgressLines(out, System::nanoTime);
    }

    /**
     * Each batch's progress object on {@code out} (as earlier versions), the plan on {@code err}.
     */
    public static ProgressListener json(PrintStream out, PrintStream err) {
        return new ProgressListener() {
            @Override
            public void onProgress(ObjectNode progress) {
                out.println(progress.toPrettyString());
            }

            @Override
            public void onPlan(SourcePlan plan) {
                err.println(planLine(plan));
            }
        };
    }

    @Override
    public void onPlan(SourcePlan plan) {
        // A query with several sources runs as many batches as its longest plan.
        planned.merge(plan.query(), plan.batches(), Math::max);
        out.println(planLine(plan));
    }

    @Override
    public void onProgress(ObjectNode progress) {
        if (isNoDataReport(progress)) {
            return; // the run's summary says "nothing new"
        }
        out.println(batchLine(progress));
    }

    /**
     * Spark's lastProgress after a run with nothing new is no batch: the next, unused batch id,
     * with no source.
     */
    private static boolean isNoDataReport(ObjectNode progress) {
        return progress.path("sources").isEmpty() && progress.path("numInputRows").asLong() == 0;
    }

    String batchLine(ObjectNode progress) {
        String query = progress.path("name").asText();
        int n = printed.merge(query, 1, Integer::sum);
        Long total = planned.get(query);
        StringBuilder line = new StringBuilder("batch ").append(n);
        if (total != null && n <= total) {
            line.append('/').append(total);
        }
        line.append("  ")
                .append(String.format(Locale.ROOT, "%,d", progress.path("numInputRows").asLong()))
                .append(" rows  ")
                .append(rate(progress.path("processedRowsPerSecond").asDouble()))
                .append(" rows/s");
        String watermark = progress.path("eventTime").path("watermark").asText("");
        if (!watermark.isEmpty() && !watermark.equals(NO_WATERMARK)) {
            line.append("  watermark ").append(shortInstant(watermark));
        }
        line.append("  elapsed ")
                .append(
                        String.format(
                                Locale.ROOT, "%.1f s", (nanoClock.getAsLong() - started) / 1e9))
                .append("  id ")
                .append(progress.path("batchId").asLong());
        return line.toString();
    }

    static String planLine(SourcePlan plan) {
        StringBuilder line = new StringBuilder("plan for ").append(plan.query()).append(": ");
        if (plan.batches() == 0) {
            line.append("nothing new");
        } else {
            line.append(count(plan.batches(), "batch", "batches"));
            if (plan.offsets() >= 0) {
                line.append(", ").append(count(plan.offsets(), "offset", "offsets"));
            }
            if (plan.files() >= 0) {
                line.append(", ").append(count(plan.files(), "file", "files"));
            }
            if (plan.bytes() >= 0) {
                line.append(", ").append(bytes(plan.bytes()));
            }
            if (!plan.range().isEmpty()) {
                line.append(": ").append(plan.range());
            }
        }
        return line.append(" (source ")
                .append(plan.source())
                .append(", ")
                .append(plan.limit())
                .append(')')
                .toString();
    }

    private static String count(long n, String one, String many) {
        return String.format(Locale.ROOT, "%,d %s", n, n == 1 ? one : many);
    }

    /** {@code 812 B}, {@code 6.1 KB}, {@code 1.2 GB}: powers of 1,024. */
    static String bytes(long n) {
        if (n < 1024) {
            return n + " B";
        }
        String[] units = {"KB", "MB", "GB", "TB"};
        double v = n;
        int unit = -1;
        while (v >= 1024 && unit < units.length - 1) {
            v /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, v < 10 ? "%.1f %s" : "%.0f %s", v, units[unit]);
    }

    /** {@code 412}, {@code 1.2K}, {@code 412K}, {@code 3.1M}. */
    static String rate(double perSecond) {
        if (perSecond < 1000) {
            return String.format(Locale.ROOT, "%.0f", perSecond);
        }
        double k = perSecond / 1000;
        if (k < 1000) {
            return String.format(Locale.ROOT, k < 10 ? "%.1fK" : "%.0fK", k);
        }
        double m = k / 1000;
        return String.format(Locale.ROOT, m < 10 ? "%.1fM" : "%.0fM", m);
    }

    /** {@code 2025-03-01T01:50:00.000Z} as {@code 2025-03-01T01:50Z}; seconds only if not 0. */
    static String shortInstant(String sparkInstant) {
        String s = sparkInstant.replace(".000Z", "Z");
        return s.endsWith(":00Z") && s.length() == "2025-03-01T01:50:00Z".length()
                ? s.substring(0, s.length() - 4) + "Z"
                : s;
    }
}
