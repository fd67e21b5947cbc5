package org.flinkss.sparkdiff;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * One table of one round, Spark's rows against the project's, as multisets of CSV lines: exactly
 * (timestamps at Spark's precision, microseconds) and with both sides' timestamps cut to
 * milliseconds, which tells a difference of precision (issue 13 point 6) from a difference of rows.
 */
record TableDiff(
        long seed,
        int round,
        DiffQuery query,
        String api,
        int parallelism,
        String sparkHeader,
        String flinkHeader,
        List<String> onlySpark,
        List<String> onlyFlink,
        List<String> onlySparkMs,
        List<String> onlyFlinkMs,
        int sparkRows,
        int flinkRows) {

    private static final Pattern MICROS = Pattern.compile("(\\d{2}:\\d{2}:\\d{2}\\.\\d{3})\\d{3}Z");
    private static final int SHOWN = 12;

    /** Compares the export of both sides (header first, then rows, in any order). */
    static TableDiff of(
            long seed,
            int round,
            DiffQuery query,
            String api,
            int parallelism,
            List<String> spark,
            List<String> flink) {
        List<String> sparkRows = spark.subList(1, spark.size());
        List<String> flinkRows = flink.subList(1, flink.size());
        List<String> sparkMs = new ArrayList<>();
        for (String line : sparkRows) {
            sparkMs.add(toMillis(line));
        }
        // Both sides cut: the project keeps microseconds where Spark does, except where a known
        // precision difference says otherwise (a session's start and end).
        List<String> flinkMs = new ArrayList<>();
        for (String line : flinkRows) {
            flinkMs.add(toMillis(line));
        }
        return new TableDiff(
                seed,
                round,
                query,
                api,
                parallelism,
                spark.get(0),
                flink.get(0),
                minus(sparkRows, flinkRows),
                minus(flinkRows, sparkRows),
                minus(sparkMs, flinkMs),
                minus(flinkMs, sparkMs),
                sparkRows.size(),
                flinkRows.size());
    }

    /** A timestamp with microseconds cut to milliseconds. */
    static String toMillis(String line) {
        return MICROS.matcher(line).replaceAll("$1Z");
    }

    /** {@code a} minus {@code b}, with multiplicity, sorted. */
    static List<String> minus(List<String> a, List<String> b) {
        Map<String, Integer> counts = new TreeMap<>();
        for (String line : a) {
            counts.merge(line, 1, Integer::sum);
        }
        for (String line : b) {
            counts.computeIfPresent(line, (k, n) -> n == 1 ? null : n - 1);
        }
        List<String> rest = new ArrayList<>();
        counts.forEach(
                (line, n) -> {
                    for (int i = 0; i < n; i++) {
                        rest.add(line);
                    }
                });
        return rest;
    }

    /** Both headers name the same columns (a side with no table yet has none). */
    boolean headersDiffer() {
        return !sparkHeader.isEmpty() && !flinkHeader.isEmpty() && !sparkHeader.equals(flinkHeader);
    }

    /** Rows differ even with both sides' timestamps cut to milliseconds (or the columns differ). */
    boolean rowsDiffer() {
        return headersDiffer() || !onlySparkMs.isEmpty() || !onlyFlinkMs.isEmpty();
    }

    /** Some rows differ only by Spark's microseconds. */
    boolean precisionDiffers() {
        return onlySpark.size() + onlyFlink.size() > onlySparkMs.size() + onlyFlinkMs.size();
    }

    boolean differs() {
        return rowsDiffer() || precisionDiffers();
    }

    String where() {
        return "seed "
                + seed
                + ", round "
                + round
                + ", query "
                + query.id
                + " ("
                + query.table
                + "), api "
                + api
                + ", parallelism "
                + parallelism;
    }

    /** A readable diff: where, what kind, the rows only in Spark and only in the project. */
    String describe() {
        StringBuilder sb =
                new StringBuilder(where())
                        .append(": Spark ")
                        .append(sparkRows)
                        .append(" rows, project ")
                        .append(flinkRows);
        if (headersDiffer()) {
            sb.append("\n    columns: Spark ")
                    .append(sparkHeader)
                    .append(" | project ")
                    .append(flinkHeader);
        }
        if (rowsDiffer()) {
            sb.append("\n    rows (timestamps cut to ms): ")
                    .append(onlySparkMs.size())
                    .append(" only in Spark, ")
                    .append(onlyFlinkMs.size())
                    .append(" only in the project   [")
                    .append(sparkHeader.isEmpty() ? flinkHeader : sparkHeader)
                    .append(']');
            lines(sb, "only in Spark:  ", onlySparkMs);
            lines(sb, "only in project:", onlyFlinkMs);
        }
        if (precisionDiffers()) {
            List<String> micro = new ArrayList<>(onlySpark);
            micro.removeIf(line -> toMillis(line).equals(line));
            sb.append("\n    precision: ")
                    .append(micro.size())
                    .append(" Spark rows with microseconds that the project keeps in ms");
            lines(sb, "Spark:          ", micro);
        }
        return sb.toString();
    }

    private static void lines(StringBuilder sb, String label, List<String> rows) {
        for (int i = 0; i < Math.min(SHOWN, rows.size()); i++) {
            sb.append("\n      ").append(label).append(' ').append(rows.get(i));
        }
        if (rows.size() > SHOWN) {
            sb.append("\n      ")
                    .append(label)
                    .append(" ... ")
                    .append(rows.size() - SHOWN)
                    .append(" more");
        }
    }
}
