package org.flinkss.runtime.runner.impl;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Flink's sink check of a {@code NOT NULL} column, said in the project's words. Flink fails the
 * task with advice to drop such rows silently ({@code 'table.exec.sink.not-null-enforcer'='DROP'}),
 * which this project does not give; the run's error says instead what happened to the batch and
 * what to do. Each method takes one line of a failure's chain ("EnforcerException: Column ..."; a
 * serialized one names the class in full) and leaves any other line alone.
 */
final class FlinkNotNullCheck {

    /** Flink's words when its sink check finds a null in a {@code NOT NULL} column (2.2.0). */
    private static final Pattern FLINK_NOT_NULL =
            Pattern.compile(
                    "EnforcerException: Column '(.+?)' is NOT NULL, however, a null value is being"
                            + " written into it\\.");

    private FlinkNotNullCheck() {}

    /** {@code line} as the run's error says it ({@link FailureExplainer}). */
    static String asError(String line) {
        return column(line)
                .map(
                        column ->
                                found(column)
                                        + ": the batch failed before it committed, so the table"
                                        + " and the checkpoint stay as they were. Give the column"
                                        + " a value (COALESCE("
                                        + column
                                        + ", ...)), leave such rows out (WHERE "
                                        + column
                                        + " IS NOT NULL), or declare the column without NOT NULL"
                                        + " (a changed column needs 'reset <query>')")
                .orElse(line);
    }

    /**
     * Whether {@code line} is this check's failure: one that every restart meets again, since a
     * restart reads the same rows from the same checkpoint ({@link FailureExplainer#repeating}).
     */
    static boolean matches(String line) {
        return column(line).isPresent();
    }

    private static Optional<String> column(String line) {
        Matcher notNull = FLINK_NOT_NULL.matcher(line);
        return notNull.find() ? Optional.of(notNull.group(1)) : Optional.empty();
    }

    private static String found(String column) {
        return "a row has a null in column '"
                + column
                + "', which the table it is written to declares NOT NULL (Flink's check at the"
                + " sink)";
    }
}
