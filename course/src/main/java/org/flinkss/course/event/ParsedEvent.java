package org.flinkss.course.event;

import java.util.Objects;

/**
 * A line of a landing file, read with the event schema: the event, or, for a line that is not JSON
 * or does not fit the schema, where it was and why it was refused (the quarantine's row), or both:
 * the row Spark's PERMISSIVE reader makes of such a line and the quarantine's record of it ({@link
 * #lenient}). A further kind stands for a whole file that was gone when read and was skipped
 * ({@code --skip-missing-files}): the file, its batch and why (the skipped-files table's row).
 */
public final class ParsedEvent {

    /** The event, or null for a line the table does not take. */
    public Event event;

    /**
     * With a rescued data column, what the line held that the schema could not (a JSON object, see
     * {@link org.flinkss.course.event.EventJson#parseRescued}); null if nothing, or without one.
     */
    public String rescuedData;

    /**
     * With schema evolution ({@link NewColumns}), the line's fields beyond the event columns that
     * are columns of the table, as a JSON object; null if none, or without it.
     */
    public String columns;

    public String file;
    public Long line;

    /** The raw text and the reason; null for a clean line. */
    public String raw;

    public String reason;

    /** For a skipped file: the batch it was planned in; null for a line. */
    public Long skippedInBatch;

    public ParsedEvent() {}

    public static ParsedEvent good(Event event) {
        ParsedEvent p = new ParsedEvent();
        p.event = event;
        return p;
    }

    public static ParsedEvent good(Event event, String rescuedData) {
        ParsedEvent p = good(event);
        p.rescuedData = rescuedData;
        return p;
    }

    public static ParsedEvent bad(String file, long line, String raw, String reason) {
        ParsedEvent p = new ParsedEvent();
        p.file = file;
        p.line = line;
        p.raw = raw;
        p.reason = reason;
        return p;
    }

    /**
     * A line that was not clean, read as Spark's PERMISSIVE reader reads it: the row for the table,
     * and the quarantine's record of the line.
     */
    public static ParsedEvent lenient(
            Event event, String rescuedData, String file, long line, String raw, String reason) {
        ParsedEvent p = bad(file, line, raw, reason);
        p.event = event;
        p.rescuedData = rescuedData;
        return p;
    }

    /**
     * A file gone before it was read, skipped: {@code file}, {@code skippedInBatch} and {@code
     * reason} say which and why.
     */
    public static ParsedEvent skippedFile(String file, long batchId, String reason) {
        ParsedEvent p = new ParsedEvent();
        p.file = file;
        p.skippedInBatch = batchId;
        p.reason = reason;
        return p;
    }

    public boolean isBad() {
        return event == null && skippedInBatch == null;
    }

    /** A line that goes to the quarantine table (with or without a row for the table). */
    public boolean isQuarantined() {
        return reason != null && skippedInBatch == null;
    }

    public boolean isSkippedFile() {
        return skippedInBatch != null;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ParsedEvent)) {
            return false;
        }
        ParsedEvent p = (ParsedEvent) o;
        return Objects.equals(event, p.event)
                && Objects.equals(rescuedData, p.rescuedData)
                && Objects.equals(columns, p.columns)
                && Objects.equals(file, p.file)
                && Objects.equals(line, p.line)
                && Objects.equals(raw, p.raw)
                && Objects.equals(reason, p.reason)
                && Objects.equals(skippedInBatch, p.skippedInBatch);
    }

    @Override
    public int hashCode() {
        return Objects.hash(event, rescuedData, columns, file, line, raw, reason, skippedInBatch);
    }

    @Override
    public String toString() {
        if (isSkippedFile()) {
            return "Skipped{" + file + ", batch " + skippedInBatch + ", " + reason + "}";
        }
        String row =
                (rescuedData == null ? String.valueOf(event) : event + " rescued " + rescuedData)
                        + (columns == null ? "" : " columns " + columns);
        if (isBad()) {
            return "Bad{" + file + ":" + line + " " + reason + "}";
        }
        return isQuarantined() ? row + " and Bad{" + file + ":" + line + " " + reason + "}" : row;
    }
}
