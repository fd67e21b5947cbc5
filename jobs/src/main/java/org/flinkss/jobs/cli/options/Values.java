package org.flinkss.jobs.cli.options;

import org.flinkss.runtime.trigger.Trigger;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The values of the command line's options, read strictly: a value that cannot mean what the option
 * says is refused with a one-line reason, never read as "no limit" or as zero. The {@link
 * Converters} hand these to picocli, which adds the option's name.
 */
public final class Values {

    private static final Pattern SIZE = Pattern.compile("(?i)\\s*(\\d+)\\s*([kmgt]?)b?\\s*");

    private Values() {}

    /**
     * A size in bytes: 1048576, 512k, 64m, 1g, 1t (powers of 1024, as Spark's byte strings), at
     * least 1 byte.
     */
    public static long bytes(String text) {
        Matcher m = SIZE.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException(
                    "cannot read '"
                            + text
                            + "' as a size: use bytes, or a number with k, m, g or t (e.g. 64m)");
        }
        String unit = m.group(2).toLowerCase(Locale.ROOT);
        int shift = unit.isEmpty() ? 0 : 10 * ("kmgt".indexOf(unit) + 1);
        long n;
        try {
            n = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is too large a size");
        }
        if (n > (Long.MAX_VALUE >> shift)) {
            throw new IllegalArgumentException("'" + text + "' is too large a size");
        }
        if (n == 0) {
            throw new IllegalArgumentException(
                    "a size must be at least 1 byte, got '"
                            + text
                            + "'; leave the option out for no limit");
        }
        return n << shift;
    }

    /** A positive duration: 500ms, 10s, 5min, 1h, "10 seconds", PT10S. */
    public static Duration duration(String text) {
        Duration d;
        try {
            d = Trigger.parseDuration(text);
        } catch (DateTimeException | ArithmeticException | IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "cannot read '" + text + "' as a duration: use e.g. 500ms, 10s, 5min or 1h");
        }
        if (d.isZero() || d.isNegative()) {
            throw new IllegalArgumentException(
                    "a duration must be positive, got '" + text + "' (e.g. 500ms, 10s, 5min, 1h)");
        }
        return d;
    }

    /**
     * An instant in UTC whatever the JVM's time zone: 2025-03-01T00:00:00Z, an ISO offset, or
     * '2025-03-01 00:00:00' (UTC, as the course's session time zone).
     */
    public static Instant timestamp(String text) {
        String t = text.trim();
        try {
            return Instant.parse(t);
        } catch (DateTimeParseException e) {
            try {
                return LocalDateTime.parse(t.replace(' ', 'T')).toInstant(ZoneOffset.UTC);
            } catch (DateTimeParseException e2) {
                throw new IllegalArgumentException(
                        "cannot read '"
                                + text
                                + "' as a time: use 2025-03-01T00:00:00Z or '2025-03-01 00:00:00'"
                                + " (UTC)");
            }
        }
    }

    /** A whole number, 1 or more. */
    public static int positiveInt(String text) {
        long n = positiveLong(text);
        if (n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "'" + text + "' is too large: at most " + Integer.MAX_VALUE);
        }
        return (int) n;
    }

    /** A table version: a whole number, 0 or more (a table's first version is 0). */
    public static long version(String text) {
        long n = wholeNumber(text);
        if (n < 0) {
            throw new IllegalArgumentException(
                    "a table's versions start at 0, got '"
                            + text
                            + "' ('table history <name>' lists them)");
        }
        return n;
    }

    /** A batch id, 0 or more. */
    public static long batchId(String text) {
        long n = wholeNumber(text);
        if (n < 0) {
            throw new IllegalArgumentException(
                    "batch ids start at 0, got '"
                            + text
                            + "' ('progress <query> --all' lists them)");
        }
        return n;
    }

    /** A whole number, 1 or more. */
    public static long positiveLong(String text) {
        long n = wholeNumber(text);
        if (n < 1) {
            throw new IllegalArgumentException("must be 1 or more, got '" + text + "'");
        }
        return n;
    }

    private static long wholeNumber(String text) {
        try {
            return Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is not a whole number");
        }
    }

    /** A rate limit: 1 or more; there is no number for "no limit", which is the default. */
    public static long limit(String text) {
        try {
            return positiveLong(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    e.getMessage()
                            + "; leave the option out for no limit (Spark refuses 0 and negative"
                            + " limits too)");
        }
    }
}
