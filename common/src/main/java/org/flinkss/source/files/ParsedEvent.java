package org.flinkss.source.files;

import org.flinkss.event.Event;

import java.util.Objects;

/**
 * A line of a landing file, read with the event schema: the event, or, for a line that is not
 * JSON or does not fit the schema, where it was and why it was refused (the quarantine's row).
 */
public final class ParsedEvent {

    /** The event, or null for a bad line. */
    public Event event;
    /**
     * With a rescued data column, what the line held that the schema could not (a JSON object,
     * see {@link org.flinkss.event.EventJson#parseRescued}); null if nothing, or without one.
     */
    public String rescuedData;
    public String file;
    public Long line;
    /** The raw text and the reason; null for a good line. */
    public String raw;
    public String reason;

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

    public boolean isBad() {
        return event == null;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ParsedEvent)) {
            return false;
        }
        ParsedEvent p = (ParsedEvent) o;
        return Objects.equals(event, p.event) && Objects.equals(rescuedData, p.rescuedData)
                && Objects.equals(file, p.file) && Objects.equals(line, p.line)
                && Objects.equals(raw, p.raw) && Objects.equals(reason, p.reason);
    }

    @Override
    public int hashCode() {
        return Objects.hash(event, rescuedData, file, line, raw, reason);
    }

    @Override
    public String toString() {
        return isBad() ? "Bad{" + file + ":" + line + " " + reason + "}"
                : rescuedData == null ? String.valueOf(event) : event + " rescued " + rescuedData;
    }
}
