package org.flinkss.course.event;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** How {@link EventJson} writes: events, strings and timestamps as Spark's JSON writer does. */
final class EventJsonWriter {

    private static final DateTimeFormatter WIDE_YEAR_TIMESTAMP =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSXXX").withZone(ZoneOffset.UTC);

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private EventJsonWriter() {}

    /** Appends {@link EventJson#toJson(Event)} to {@code out}. */
    static StringBuilder appendJson(StringBuilder out, Event event) {
        out.append('{');
        int start = out.length();
        if (event.eventId != null) {
            name(out, start, "event_id").append(event.eventId.longValue());
        }
        if (event.userId != null) {
            name(out, start, "user_id").append(event.userId.intValue());
        }
        if (event.eventType != null) {
            appendString(name(out, start, "event_type"), event.eventType);
        }
        if (event.eventTs != null) {
            appendTimestamp(name(out, start, "event_ts").append('"'), event.eventTs).append('"');
        }
        if (event.amount != null) {
            appendDouble(name(out, start, "amount"), event.amount);
        }
        return out.append('}');
    }

    static StringBuilder name(StringBuilder out, int start, String name) {
        if (out.length() > start) {
            out.append(',');
        }
        return out.append('"').append(name).append("\":");
    }

    /** As Jackson's generator, which Spark uses: NaN and infinities are written as strings. */
    static StringBuilder appendDouble(StringBuilder out, double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            return out.append('"').append(d).append('"');
        }
        return out.append(d);
    }

    /** As Jackson's generator escapes: quote, backslash and control characters only. */
    static StringBuilder appendString(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c >= 0x20) {
                out.append(c);
            } else {
                switch (c) {
                    case '\b':
                        out.append("\\b");
                        break;
                    case '\t':
                        out.append("\\t");
                        break;
                    case '\n':
                        out.append("\\n");
                        break;
                    case '\f':
                        out.append("\\f");
                        break;
                    case '\r':
                        out.append("\\r");
                        break;
                    default:
                        out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
                }
            }
        }
        return out.append('"');
    }

    static StringBuilder appendTimestamp(StringBuilder out, Instant ts) {
        LocalDateTime t =
                LocalDateTime.ofEpochSecond(ts.getEpochSecond(), ts.getNano(), ZoneOffset.UTC);
        if (t.getYear() < 0 || t.getYear() > 9999) {
            return out.append(WIDE_YEAR_TIMESTAMP.format(ts));
        }
        pad(out, t.getYear(), 4).append('-');
        pad(out, t.getMonthValue(), 2).append('-');
        pad(out, t.getDayOfMonth(), 2).append('T');
        pad(out, t.getHour(), 2).append(':');
        pad(out, t.getMinute(), 2).append(':');
        pad(out, t.getSecond(), 2).append('.');
        return pad(out, t.getNano() / 1_000_000, 3).append('Z');
    }

    static StringBuilder pad(StringBuilder out, int value, int width) {
        for (int limit = 10; width > 1; width--, limit *= 10) {
            if (value < limit) {
                out.append('0');
            }
        }
        return out.append(value);
    }
}
