package org.flinkss.course.event;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonParser.NumberType;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.time.Instant;

/**
 * How each column of the event schema converts a JSON value, as Spark's {@code JacksonParser} does
 * (see {@link EventJson}): a value that does not convert throws an {@link EventParseException}
 * naming the column and why, before the parser moves past the value (except {@code event_type},
 * which takes any value as its text).
 */
final class EventColumns {

    private EventColumns() {}

    /** Reads a column's value into the event; false, reading nothing, if the field is no column. */
    static boolean readColumn(Event event, String name, JsonParser p, JsonToken value, String line)
            throws IOException {
        switch (name) {
            case "event_id":
                event.eventId = readLong(p, value);
                return true;
            case "user_id":
                event.userId = readInt(p, value);
                return true;
            case "event_type":
                event.eventType = readString(p, value, line);
                return true;
            case "event_ts":
                event.eventTs = readTimestamp(p, value);
                return true;
            case "amount":
                event.amount = readDouble(p, value);
                return true;
            default:
                return false;
        }
    }

    static void clearColumn(Event event, String name) {
        switch (name) {
            case "event_id":
                event.eventId = null;
                break;
            case "user_id":
                event.userId = null;
                break;
            case "event_ts":
                event.eventTs = null;
                break;
            case "amount":
                event.amount = null;
                break;
            default:
                // event_type reads any value as its text
                break;
        }
    }

    static Long readLong(JsonParser p, JsonToken token) throws IOException {
        if (token == JsonToken.VALUE_NULL) {
            return null;
        }
        // Spark's LONG and INT converters take JSON integers only: "12" and 12.0 are bad values.
        if (token != JsonToken.VALUE_NUMBER_INT) {
            throw mismatch(p, token, "event_id", "a whole number");
        }
        if (p.getNumberType() == NumberType.BIG_INTEGER) {
            throw new EventParseException("event_id: " + p.getText() + " is out of range for LONG");
        }
        return p.getLongValue();
    }

    static Integer readInt(JsonParser p, JsonToken token) throws IOException {
        if (token == JsonToken.VALUE_NULL) {
            return null;
        }
        if (token != JsonToken.VALUE_NUMBER_INT) {
            throw mismatch(p, token, "user_id", "a whole number");
        }
        if (p.getNumberType() != NumberType.INT) {
            throw new EventParseException("user_id: " + p.getText() + " is out of range for INT");
        }
        return p.getIntValue();
    }

    static String readString(JsonParser p, JsonToken token, String line) throws IOException {
        if (token == JsonToken.VALUE_NULL) {
            return null;
        }
        if (token == JsonToken.VALUE_STRING) {
            return p.getText();
        }
        // Spark 4 reads any other value from a file into a STRING column as its exact source
        // text (spark.sql.json.enableExactStringParsing, on by default).
        int from = (int) p.currentTokenLocation().getCharOffset();
        p.skipChildren();
        int to = (int) p.currentLocation().getCharOffset();
        return line.substring(from, to);
    }

    static Instant readTimestamp(JsonParser p, JsonToken token) throws IOException {
        if (token == JsonToken.VALUE_NULL) {
            return null;
        }
        if (token == JsonToken.VALUE_STRING) {
            String text = p.getText();
            Instant ts = SparkTimestamps.parse(text);
            if (ts == null) {
                throw new EventParseException(
                        "event_ts: cannot parse " + quote(text) + " as a timestamp");
            }
            return ts;
        }
        // A number is seconds since the epoch, whole ones only: Spark rejects 1.5.
        if (token == JsonToken.VALUE_NUMBER_INT) {
            // Spark multiplies them into microseconds without an overflow check; out of that
            // range it would store a wrapped-around time.
            if (p.getNumberType() == NumberType.BIG_INTEGER
                    || Math.abs(p.getLongValue()) > Long.MAX_VALUE / 1_000_000) {
                throw new EventParseException(
                        "event_ts: " + p.getText() + " seconds is out of range for TIMESTAMP");
            }
            return Instant.ofEpochSecond(p.getLongValue());
        }
        throw mismatch(p, token, "event_ts", "a timestamp string or whole seconds");
    }

    static Double readDouble(JsonParser p, JsonToken token) throws IOException {
        if (token == JsonToken.VALUE_NULL) {
            return null;
        }
        if (token == JsonToken.VALUE_NUMBER_INT || token == JsonToken.VALUE_NUMBER_FLOAT) {
            return p.getDoubleValue();
        }
        if (token == JsonToken.VALUE_STRING) {
            // Spark reads no other numeric strings into a DOUBLE: "1.5" is not a number to it.
            switch (p.getText()) {
                case "NaN":
                    return Double.NaN;
                case "Infinity":
                case "+Infinity":
                case "+INF":
                    return Double.POSITIVE_INFINITY;
                case "-Infinity":
                case "-INF":
                    return Double.NEGATIVE_INFINITY;
                default:
                    break;
            }
        }
        throw mismatch(p, token, "amount", "a number");
    }

    static EventParseException mismatch(
            JsonParser p, JsonToken token, String column, String expected) throws IOException {
        return new EventParseException(
                column + ": expected " + expected + ", got " + describe(p, token));
    }

    static String describe(JsonParser p, JsonToken token) throws IOException {
        switch (token) {
            case START_OBJECT:
                return "an object";
            case START_ARRAY:
                return "an array";
            case VALUE_STRING:
                return quote(p.getText());
            default:
                return p.getText();
        }
    }

    /** The text in double quotes, cut to keep a reason short. */
    static String quote(String text) {
        return '"' + (text.length() <= 40 ? text : text.substring(0, 40) + "...") + '"';
    }
}
