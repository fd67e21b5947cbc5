package org.flinkss.course.event;

import java.util.Locale;

/**
 * What bronze makes of a line that Spark's JSON reader does not read cleanly: a value of the wrong
 * type, a line that is not a JSON object, text after the object (issue 37 point 3). Blank lines are
 * no rows either way, as in Spark.
 */
public enum BadLines {
    /**
     * Spark's default mode, PERMISSIVE: the table holds the row Spark's holds (the value of the
     * wrong type null, a line that is no JSON object a row of nulls, text after the object
     * ignored), and the quarantine table records the line, its file, number and why, as Spark's
     * {@code _corrupt_record} would.
     */
    PERMISSIVE,

    /** The line goes to the quarantine table only; the table holds clean lines only. */
    QUARANTINE_ONLY;

    /** How the command line spells it: {@code permissive}, {@code quarantine-only}. */
    public String flag() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The mode the command line names. */
    public static BadLines of(String flag) {
        for (BadLines mode : values()) {
            if (mode.flag().equals(flag)) {
                return mode;
            }
        }
        throw new IllegalArgumentException(
                "--bad-lines takes permissive or quarantine-only, not '" + flag + "'");
    }
}
