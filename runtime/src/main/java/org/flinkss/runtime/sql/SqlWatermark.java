package org.flinkss.runtime.sql;

import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.catalog.WatermarkSpec;

import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A table's {@code WATERMARK FOR c AS c - INTERVAL 'n' unit} read as Spark's {@code
 * withWatermark("c", "n unit")}: the column and the delay. The runtime then computes the watermark
 * by Spark's micro-batch rule (the newest event time of a batch minus the delay, in force from the
 * next batch, kept across runs); Flink's per-record watermark is never used.
 */
public record SqlWatermark(String column, Duration delay) {

    private static final Pattern DELAYED =
            Pattern.compile(
                    "`?([^`]+)`?\\s*(?:-\\s*INTERVAL\\s*'([0-9]+(?:\\.[0-9]+)?)'\\s*"
                            + "(SECOND|MINUTE|HOUR|DAY)(?:\\(\\d+\\))?)?",
                    Pattern.CASE_INSENSITIVE);

    /**
     * The watermark of a table's schema, or empty if it declares none; refused when it is not of
     * the form {@code c} or {@code c - INTERVAL 'n' unit}.
     *
     * @param table the table's name, for the refusal
     */
    public static Optional<SqlWatermark> of(String table, ResolvedSchema schema) {
        if (schema.getWatermarkSpecs().isEmpty()) {
            return Optional.empty();
        }
        WatermarkSpec spec = schema.getWatermarkSpecs().get(0);
        String column = spec.getRowtimeAttribute();
        String expression = spec.getWatermarkExpression().asSerializableString().trim();
        Matcher m = DELAYED.matcher(expression);
        if (!m.matches() || !m.group(1).equals(column)) {
            throw new SqlTableException(
                    table,
                    "table '"
                            + table
                            + "' has WATERMARK FOR "
                            + column
                            + " AS "
                            + expression
                            + ": a watermark here is Spark's withWatermark, so write it as"
                            + " WATERMARK FOR "
                            + column
                            + " AS "
                            + column
                            + " - INTERVAL 'n' SECOND|MINUTE|HOUR|DAY");
        }
        if (m.group(2) == null) {
            return Optional.of(new SqlWatermark(column, Duration.ZERO));
        }
        double amount = Double.parseDouble(m.group(2));
        long unitMillis =
                switch (m.group(3).toUpperCase(Locale.ROOT)) {
                    case "SECOND" -> 1_000L;
                    case "MINUTE" -> 60_000L;
                    case "HOUR" -> 3_600_000L;
                    default -> 86_400_000L;
                };
        return Optional.of(
                new SqlWatermark(column, Duration.ofMillis(Math.round(amount * unitMillis))));
    }

    /** As the query's identity records it: {@code event_ts - 600000 ms}. */
    public String describe(String table) {
        return "watermark " + table + "." + column + " - " + delay.toMillis() + " ms";
    }
}
