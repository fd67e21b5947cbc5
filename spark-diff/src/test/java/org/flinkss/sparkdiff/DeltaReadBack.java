package org.flinkss.sparkdiff;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A second, independent Delta reader of the project's tables: Spark with delta-spark 4.0.0 (the
 * oracle's {@code read-delta}) reads a table's current snapshot from its {@code _delta_log} alone,
 * and must see exactly the rows of the project's {@code table export --csv}.
 */
final class DeltaReadBack {

    private static final Pattern MICROS = Pattern.compile("(\\.\\d{3})\\d{3}Z");

    private DeltaReadBack() {}

    /**
     * Fails unless {@code table} (a table's folder) has a {@code _delta_log} and Delta Spark reads
     * in it the columns and the rows (as a multiset) of {@code exported}. Spark's rows are written
     * to {@code file}. Timestamps are compared at milliseconds when the export has no row with
     * microseconds (fixed windows, whole minutes): a row Spark reads with microseconds there would
     * be a precision difference, which the differential test reports on its own.
     *
     * @return the rows Spark read
     */
    static int check(
            SparkOracleProcess spark, Path table, Path file, String what, List<String> exported)
            throws IOException {
        assertThat(table.resolve("_delta_log"))
                .as(
                        "%s: the table's folder %s has no _delta_log, so no Delta reader can read"
                                + " it",
                        what, table)
                .isDirectory();
        spark.call("read-delta " + table + " " + file);
        List<String> read = new ArrayList<>(Files.readAllLines(file, StandardCharsets.UTF_8));
        List<String> ours = new ArrayList<>(exported);
        if (ours.stream().noneMatch(l -> MICROS.matcher(l).find())) {
            read.replaceAll(l -> MICROS.matcher(l).replaceAll("$1Z"));
        }
        assertThat(read.get(0))
                .as("columns of %s read by Delta Spark", what)
                .isEqualTo(ours.get(0));
        assertThat(read.subList(1, read.size()))
                .as("rows of %s read by Delta Spark vs the project's table export", what)
                .containsExactlyInAnyOrderElementsOf(ours.subList(1, ours.size()));
        return read.size() - 1;
    }
}
