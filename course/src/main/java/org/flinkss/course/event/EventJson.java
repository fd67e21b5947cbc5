package org.flinkss.course.event;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonParser.NumberType;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/**
 * One JSON line per {@link Event}, as Spark writes and reads them with the schema {@link
 * Event#SCHEMA_DDL}.
 *
 * <p>Writing: fields in schema order, null fields left out (Spark's {@code ignoreNullFields}),
 * doubles as {@link Double#toString(double)}, timestamps as {@code yyyy-MM-dd'T'HH:mm:ss.SSSXXX} in
 * UTC, for example:
 *
 * <pre>{@code
 * {"event_id":0,"user_id":4,"event_type":"view","event_ts":"2025-03-01T00:00:00.000Z","amount":95.94}
 * }</pre>
 *
 * <p>Reading: a line must be one JSON object; unknown fields are skipped, missing fields and JSON
 * null are null, a repeated field keeps its last value. Each column converts its value as Spark's
 * {@code JacksonParser} does:
 *
 * <ul>
 *   <li>{@code event_id}, {@code user_id}: a JSON integer within LONG, INT range (not {@code 4.0},
 *       not {@code "4"});
 *   <li>{@code event_type}: a JSON string; any other value becomes its exact source text ({@code
 *       4.50} gives {@code "4.50"}, an object its JSON text), as Spark 4 does for files;
 *   <li>{@code event_ts}: a string Spark can cast to TIMESTAMP (ISO-8601 with {@code T} or a space,
 *       with or without fraction and zone; no zone means UTC), or a JSON integer of seconds since
 *       the epoch;
 *   <li>{@code amount}: any JSON number, or one of the strings {@code "NaN"}, {@code "Infinity"},
 *       {@code "+Infinity"}, {@code "+INF"}, {@code "-Infinity"}, {@code "-INF"}.
 * </ul>
 *
 * <p>Where Spark would null a value (PERMISSIVE mode) this parser throws an {@link
 * EventParseException} naming the reason, so the caller decides between quarantine and failure. One
 * call reads one object, which makes text after the object an error, where Spark ignores it. A
 * top-level array, which Spark reads as one row per object in it, is split by {@link
 * #arrayElements}. Spark skips blank lines without a row; here they throw "empty line", so readers
 * should skip them.
 *
 * <p>{@link #parseRescued} reads like Databricks Auto Loader with its {@code rescuedDataColumn}
 * option: what the schema cannot hold is kept instead of skipped or refused (see there).
 */
public final class EventJson {

    // Spark's reader defaults (JSONOptions): single quotes and NaN/Infinity tokens are allowed,
    // everything else is strict. The fast double parser is correctly rounded, like parseDouble.
    private static final JsonFactory FACTORY =
            new JsonFactoryBuilder()
                    .enable(JsonReadFeature.ALLOW_SINGLE_QUOTES)
                    .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
                    .enable(StreamReadFeature.USE_FAST_DOUBLE_PARSER)
                    .build();

    private static final DateTimeFormatter WIDE_YEAR_TIMESTAMP =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSXXX").withZone(ZoneOffset.UTC);

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    /** The key under which {@link #parseRescued} names the source file, as Auto Loader does. */
    public static final String FILE_PATH = "_file_path";

    private EventJson() {}

    /** The line Spark's JSON writer produces for this event, without a line separator. */
    public static String toJson(Event event) {
        return appendJson(new StringBuilder(112), event).toString();
    }

    /** Appends {@link #toJson(Event)} to {@code out}. */
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

    /** A timestamp as Spark's JSON writer formats it: {@code 2025-03-01T00:00:00.000Z}. */
    public static String timestampText(Instant ts) {
        return appendTimestamp(new StringBuilder(24), ts).toString();
    }

    /**
     * Parses one JSON line.
     *
     * @throws EventParseException if the line is not one JSON object or a column's value does not
     *     convert to its type; the message says why
     */
    public static Event parse(String line) {
        return parse(line, null);
    }

    /**
     * Parses one JSON line as Auto Loader does with a rescued data column: whatever the schema
     * cannot hold is kept as a JSON object, {@link Rescued#rescuedData}, instead of being skipped
     * or refusing the line:
     *
     * <ul>
     *   <li>fields that are not in the schema, including those whose name differs from a column's
     *       only by case (Auto Loader's default, {@code readerCaseSensitive}), with their values;
     *   <li>fields of the schema whose value does not convert to the column's type (those that
     *       {@link #parse} refuses): the column is then null and the value is rescued;
     *   <li>and then, only if something was rescued, {@code "_file_path"}: {@code filePath} (left
     *       out when it is null).
     * </ul>
     *
     * <p>For example {@code {"event_id":"7","user_id":4,"channel":{"app":"ios"}}} read from {@code
     * /in/a.json} gives {@code event_id} null, {@code user_id} 4 and {@code
     * {"event_id":"7","channel":{"app":"ios"},"_file_path":"/in/a.json"}}. A line with nothing to
     * rescue gives null. Rescued values are compact JSON: numbers exactly as written ({@code 4.50}
     * stays {@code 4.50}), strings and names escaped as {@link #toJson} escapes them, {@code NaN}
     * and infinities as strings, as Jackson writes them. A repeated field keeps its last value, in
     * its column or in the rescued object. A field of the line that is itself named {@code
     * _file_path} is rescued like any other, and the object then has that name twice.
     *
     * <p>Lines that are not one JSON object (blank, malformed, cut short, text after the object)
     * still throw {@link EventParseException}: Auto Loader does not rescue corrupt records
     * (incomplete or malformed JSON) either; readers put them in quarantine.
     *
     * @param filePath the file the line comes from, for {@code "_file_path"}; null to leave it out
     *     (Auto Loader's {@code spark.databricks.sql.rescuedDataColumn.filePath.enabled=false})
     */
    public static Rescued parseRescued(String line, String filePath) {
        return rescuing(filePath).parse(line);
    }

    /**
     * {@link #parseRescued} for the lines of one file: the file path is escaped once and the
     * buffers are reused, so a reader should keep one per file it reads (it is not thread-safe).
     */
    public static RescuingParser rescuing(String filePath) {
        return new RescuingParser(filePath);
    }

    /** Parses lines as {@link #parseRescued} does; made by {@link #rescuing}. */
    public static final class RescuingParser {
        /** {@code "_file_path":"..."}, or null to leave it out. */
        private final String filePathField;

        // The rescued fields of the current line, in the line's order.
        private final List<String> names = new ArrayList<>(4);
        private final List<String> values = new ArrayList<>(4);
        private final StringBuilder buffer = new StringBuilder(128);

        private RescuingParser(String filePath) {
            this.filePathField =
                    filePath == null
                            ? null
                            : appendString(
                                            appendString(new StringBuilder(), FILE_PATH)
                                                    .append(':'),
                                            filePath)
                                    .toString();
        }

        public Rescued parse(String line) {
            names.clear();
            values.clear();
            Event event = EventJson.parse(line, this);
            return new Rescued(event, names.isEmpty() ? null : rescuedData());
        }

        void put(String name, JsonParser p, JsonToken value) throws IOException {
            buffer.setLength(0);
            appendValue(buffer, p, value);
            int i = names.indexOf(name);
            if (i >= 0) {
                values.set(i, buffer.toString());
            } else {
                names.add(name);
                values.add(buffer.toString());
            }
        }

        void remove(String name) {
            int i = names.indexOf(name);
            if (i >= 0) {
                names.remove(i);
                values.remove(i);
            }
        }

        private String rescuedData() {
            buffer.setLength(0);
            char separator = '{';
            for (int i = 0; i < names.size(); i++) {
                appendString(buffer.append(separator), names.get(i))
                        .append(':')
                        .append(values.get(i));
                separator = ',';
            }
            if (filePathField != null) {
                buffer.append(',').append(filePathField);
            }
            return buffer.append('}').toString();
        }
    }

    /**
     * An event and what its line held that the schema could not, or null: {@link #parseRescued}.
     */
    public static final class Rescued {
        public final Event event;
        public final String rescuedData;

        Rescued(Event event, String rescuedData) {
            this.event = event;
            this.rescuedData = rescuedData;
        }
    }

    /**
     * The objects of a line that holds a JSON array, each as its own text for {@link #parse}:
     * Spark's JSON reader reads every object of a top-level array as a row, and an empty array as
     * no row (measured on Spark 4.0.4). An array that holds anything but objects (a number, a
     * string, null, another array), that is not valid JSON, or that is followed by more text, is
     * refused whole: Spark makes such a line one corrupt record.
     *
     * @throws EventParseException if the line is not such an array; the message says why
     */
    public static List<String> arrayElements(String line) {
        try (JsonParser p = FACTORY.createParser(line)) {
            JsonToken token = p.nextToken();
            if (token != JsonToken.START_ARRAY) {
                throw new EventParseException(
                        token == null ? "empty line" : "not a JSON array: " + describe(p, token));
            }
            List<String> elements = new ArrayList<>();
            while ((token = p.nextToken()) != JsonToken.END_ARRAY) {
                if (token != JsonToken.START_OBJECT) {
                    throw new EventParseException(
                            "array element "
                                    + (elements.size() + 1)
                                    + " is not a JSON object: "
                                    + (token == null ? "the line ends" : describe(p, token)));
                }
                int start = (int) p.currentTokenLocation().getCharOffset();
                p.skipChildren();
                int end = (int) p.currentLocation().getCharOffset();
                elements.add(line.substring(start, end));
            }
            requireEnd(p, "array");
            return elements;
        } catch (JsonProcessingException e) {
            throw new EventParseException("not JSON: " + jsonReason(e), e);
        } catch (IOException e) {
            // A parser over a String does no I/O.
            throw new UncheckedIOException(e);
        }
    }

    /** Without {@code rescued}, unknown fields are skipped and bad values throw. */
    private static Event parse(String line, RescuingParser rescued) {
        try (JsonParser p = FACTORY.createParser(line)) {
            JsonToken token = p.nextToken();
            if (token == null) {
                throw new EventParseException("empty line");
            }
            if (token != JsonToken.START_OBJECT) {
                throw new EventParseException("not a JSON object: " + describe(p, token));
            }
            Event event = new Event();
            String name;
            while ((name = p.nextFieldName()) != null) {
                JsonToken value = p.nextToken();
                if (rescued == null) {
                    if (!readColumn(event, name, p, value, line)) {
                        p.skipChildren();
                    }
                } else {
                    readRescuing(event, name, p, value, line, rescued);
                }
            }
            requireEnd(p);
            return event;
        } catch (JsonProcessingException e) {
            throw new EventParseException("not JSON: " + jsonReason(e), e);
        } catch (IOException e) {
            // A parser over a String does no I/O.
            throw new UncheckedIOException(e);
        }
    }

    /** Reads a column's value into the event; false, reading nothing, if the field is no column. */
    private static boolean readColumn(
            Event event, String name, JsonParser p, JsonToken value, String line)
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

    private static void readRescuing(
            Event event,
            String name,
            JsonParser p,
            JsonToken value,
            String line,
            RescuingParser rescued)
            throws IOException {
        try {
            if (readColumn(event, name, p, value, line)) {
                // The last value of a repeated field wins, in its column or in the rescued data.
                rescued.remove(name);
                return;
            }
        } catch (EventParseException e) {
            // The readers throw before they move past the value: it can still be copied.
            clearColumn(event, name);
        }
        rescued.put(name, p, value);
    }

    private static void clearColumn(Event event, String name) {
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

    /** The current value as compact JSON, numbers as written, leaving the parser at its end. */
    private static void appendValue(StringBuilder out, JsonParser p, JsonToken token)
            throws IOException {
        switch (token) {
            case START_OBJECT:
                {
                    char separator = '{';
                    String name;
                    while ((name = p.nextFieldName()) != null) {
                        appendString(out.append(separator), name).append(':');
                        appendValue(out, p, p.nextToken());
                        separator = ',';
                    }
                    out.append(separator == '{' ? "{}" : "}");
                    break;
                }
            case START_ARRAY:
                {
                    char separator = '[';
                    JsonToken element;
                    while ((element = p.nextToken()) != JsonToken.END_ARRAY) {
                        appendValue(out.append(separator), p, element);
                        separator = ',';
                    }
                    out.append(separator == '[' ? "[]" : "]");
                    break;
                }
            case VALUE_STRING:
                appendString(out, p.getText());
                break;
            case VALUE_NUMBER_FLOAT:
                {
                    // A number's text is its source text. NaN and the infinities (allowed, as Spark
                    // does) are not JSON numbers: strings, as Jackson's generator writes them.
                    String text = p.getText();
                    if (Character.isDigit(text.charAt(text.length() - 1))) {
                        out.append(text);
                    } else {
                        appendString(out, text);
                    }
                    break;
                }
            default:
                // integers, true, false, null
                out.append(p.getText());
        }
    }

    private static Long readLong(JsonParser p, JsonToken token) throws IOException {
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

    private static Integer readInt(JsonParser p, JsonToken token) throws IOException {
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

    private static String readString(JsonParser p, JsonToken token, String line)
            throws IOException {
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

    private static Instant readTimestamp(JsonParser p, JsonToken token) throws IOException {
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

    private static Double readDouble(JsonParser p, JsonToken token) throws IOException {
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

    private static void requireEnd(JsonParser p) throws IOException {
        requireEnd(p, "object");
    }

    private static void requireEnd(JsonParser p, String what) throws IOException {
        int column = p.currentLocation().getColumnNr();
        JsonToken next;
        try {
            next = p.nextToken();
        } catch (JsonProcessingException e) {
            next = JsonToken.NOT_AVAILABLE;
        }
        if (next != null) {
            throw new EventParseException(
                    "trailing content after the JSON " + what + " at column " + column);
        }
    }

    private static String jsonReason(JsonProcessingException e) {
        String message = e.getOriginalMessage();
        // Jackson names where an unclosed object began, with a placeholder for the source text.
        int startMarker = message.indexOf(" (start marker at");
        if (startMarker >= 0) {
            message = message.substring(0, startMarker);
        }
        JsonLocation at = e.getLocation();
        return at == null ? message : message + " at column " + at.getColumnNr();
    }

    private static EventParseException mismatch(
            JsonParser p, JsonToken token, String column, String expected) throws IOException {
        return new EventParseException(
                column + ": expected " + expected + ", got " + describe(p, token));
    }

    private static String describe(JsonParser p, JsonToken token) throws IOException {
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
    private static String quote(String text) {
        return '"' + (text.length() <= 40 ? text : text.substring(0, 40) + "...") + '"';
    }

    private static StringBuilder name(StringBuilder out, int start, String name) {
        if (out.length() > start) {
            out.append(',');
        }
        return out.append('"').append(name).append("\":");
    }

    /** As Jackson's generator, which Spark uses: NaN and infinities are written as strings. */
    private static StringBuilder appendDouble(StringBuilder out, double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            return out.append('"').append(d).append('"');
        }
        return out.append(d);
    }

    /** As Jackson's generator escapes: quote, backslash and control characters only. */
    private static StringBuilder appendString(StringBuilder out, String s) {
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

    private static StringBuilder appendTimestamp(StringBuilder out, Instant ts) {
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

    private static StringBuilder pad(StringBuilder out, int value, int width) {
        for (int limit = 10; width > 1; width--, limit *= 10) {
            if (value < limit) {
                out.append('0');
            }
        }
        return out.append(value);
    }
}
