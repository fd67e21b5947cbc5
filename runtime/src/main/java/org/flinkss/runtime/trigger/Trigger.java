package org.flinkss.runtime.trigger;

import java.io.Serializable;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * When a query runs, as Spark's {@code Trigger}. The query's graph does not depend on it: only the
 * sources (what a batch reads and when) and the runner (when to stop) do.
 *
 * <ul>
 *   <li>{@code available-now} (the default): restore, read what exists at the start (in several
 *       batches if a rate limit says so), commit, stop with a savepoint, exit.
 *   <li>{@code processing-time=<interval>}: run until stopped; every interval, a batch of what
 *       arrived since the last one, committed by a checkpoint.
 *   <li>{@code continuous}: run until stopped, looking for new data every second.
 *   <li>{@code once}: deprecated alias of available-now, as in Spark.
 *   <li>{@code real-time[=<checkpoint interval>]}: Spark 4.1's real-time mode ({@code
 *       .trigger(realTime="5 minutes")}, {@code RealTimeTrigger}): run until stopped; records flow
 *       as they arrive (a source looks for new data every {@link #REAL_TIME_POLL} and starts the
 *       next batch as soon as the last one is read, without waiting for a checkpoint); output is
 *       committed at each checkpoint, every interval ({@link #DEFAULT_REAL_TIME_CHECKPOINT} unless
 *       given). Spark's interval is the length of its long batch, 5 minutes by default; here it is
 *       the commit cadence, shorter by default so that {@code read_committed} readers wait less.
 * </ul>
 */
public final class Trigger implements Serializable {

    private static final long serialVersionUID = 1L;

    public enum Kind {
        AVAILABLE_NOW,
        PROCESSING_TIME,
        CONTINUOUS,
        REAL_TIME
    }

    /** How often a real-time run's source looks for new records while it has none to read. */
    public static final Duration REAL_TIME_POLL = Duration.ofMillis(10);

    /** A real-time run's checkpoint (commit) interval when none is given. */
    public static final Duration DEFAULT_REAL_TIME_CHECKPOINT = Duration.ofSeconds(5);

    private final Kind kind;
    private final Duration interval;
    private final boolean deprecatedOnce;

    private Trigger(Kind kind, Duration interval, boolean deprecatedOnce) {
        this.kind = kind;
        this.interval = interval;
        this.deprecatedOnce = deprecatedOnce;
    }

    public static Trigger availableNow() {
        return new Trigger(Kind.AVAILABLE_NOW, Duration.ofSeconds(1), false);
    }

    public static Trigger processingTime(Duration interval) {
        if (interval.isZero() || interval.isNegative()) {
            throw new IllegalArgumentException(
                    "processing-time interval must be positive, got " + interval);
        }
        return new Trigger(Kind.PROCESSING_TIME, interval, false);
    }

    public static Trigger continuous() {
        return new Trigger(Kind.CONTINUOUS, Duration.ofSeconds(1), false);
    }

    /** A real-time run committed by a checkpoint every {@code checkpointInterval}. */
    public static Trigger realTime(Duration checkpointInterval) {
        if (checkpointInterval.isZero() || checkpointInterval.isNegative()) {
            throw new IllegalArgumentException(
                    "real-time checkpoint interval must be positive, got " + checkpointInterval);
        }
        return new Trigger(Kind.REAL_TIME, checkpointInterval, false);
    }

    /**
     * Parses {@code available-now}, {@code processing-time=10s}, {@code continuous}, {@code once},
     * {@code real-time}, {@code real-time=30s}.
     */
    public static Trigger parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.equals("available-now") || t.equals("availablenow")) {
            return availableNow();
        }
        if (t.equals("once")) {
            return new Trigger(Kind.AVAILABLE_NOW, Duration.ofSeconds(1), true);
        }
        if (t.equals("continuous")) {
            return continuous();
        }
        if (t.equals("real-time") || t.equals("realtime")) {
            return realTime(DEFAULT_REAL_TIME_CHECKPOINT);
        }
        if (t.startsWith("real-time=")) {
            return realTime(parseDuration(t.substring("real-time=".length())));
        }
        if (t.startsWith("processing-time=")) {
            return processingTime(parseDuration(t.substring("processing-time=".length())));
        }
        throw new IllegalArgumentException(
                "unknown trigger '"
                        + text
                        + "': use available-now, processing-time=<interval> (e.g."
                        + " processing-time=10s), real-time[=<checkpoint interval>], continuous or"
                        + " once");
    }

    /** Parses "10s", "500ms", "2min", "1h", "10 seconds", "PT10S". */
    public static Duration parseDuration(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.startsWith("pt")) {
            return Duration.parse(text.trim());
        }
        Matcher m = Pattern.compile("(\\d+)\\s*([a-z]*)").matcher(t);
        if (!m.matches()) {
            throw new IllegalArgumentException(
                    "cannot read '" + text + "' as a duration: use e.g. 10s, 500ms, 2min, 1h");
        }
        long n = Long.parseLong(m.group(1));
        switch (m.group(2)) {
            case "ms":
            case "millis":
            case "milliseconds":
                return Duration.ofMillis(n);
            case "":
            case "s":
            case "sec":
            case "second":
            case "seconds":
                return Duration.ofSeconds(n);
            case "m":
            case "min":
            case "minute":
            case "minutes":
                return Duration.ofMinutes(n);
            case "h":
            case "hour":
            case "hours":
                return Duration.ofHours(n);
            default:
                throw new IllegalArgumentException(
                        "unknown unit in duration '" + text + "': use ms, s, min or h");
        }
    }

    public Kind kind() {
        return kind;
    }

    public boolean isAvailableNow() {
        return kind == Kind.AVAILABLE_NOW;
    }

    /** Records flow as they arrive; output commits at each checkpoint. */
    public boolean isRealTime() {
        return kind == Kind.REAL_TIME;
    }

    public boolean isDeprecatedOnce() {
        return deprecatedOnce;
    }

    /**
     * How often an unbounded run looks for new data; for available-now, the checkpoint cadence; for
     * real-time, the checkpoint (commit) interval (it looks every {@link #REAL_TIME_POLL}).
     */
    public Duration interval() {
        return interval;
    }

    @Override
    public String toString() {
        switch (kind) {
            case AVAILABLE_NOW:
                return deprecatedOnce ? "once" : "available-now";
            case PROCESSING_TIME:
                return "processing-time=" + interval.toMillis() + "ms";
            case REAL_TIME:
                return "real-time=" + interval.toMillis() + "ms";
            default:
                return "continuous";
        }
    }
}
