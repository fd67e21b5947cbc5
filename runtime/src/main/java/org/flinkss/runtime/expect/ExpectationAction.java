package org.flinkss.runtime.expect;

import java.util.Locale;

/**
 * What a row that breaks an {@link Expectation} does to its batch: Lakeflow's (DLT's) {@code
 * expect}, {@code expect_or_drop} and {@code expect_or_fail}.
 */
public enum ExpectationAction {
    /** The row is written and counted as failed. */
    WARN,
    /** The row is left out of the table, counted, and written to {@code <table>_rejected}. */
    DROP,
    /** The batch fails before any of it commits, naming the rule, the table and the row. */
    FAIL;

    /** As the command line and progress spell it: {@code warn}, {@code drop}, {@code fail}. */
    public String spelled() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @throws IllegalArgumentException naming the three actions if {@code text} is none of them
     */
    public static ExpectationAction of(String text) {
        for (ExpectationAction action : values()) {
            if (action.spelled().equals(text.trim().toLowerCase(Locale.ROOT))) {
                return action;
            }
        }
        throw new IllegalArgumentException("unknown action '" + text + "': use warn, drop or fail");
    }
}
