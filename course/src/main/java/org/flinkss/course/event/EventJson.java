package org.flinkss.course.event;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
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

    /** The key under which {@link #parseRescued} names the source file, as Auto Loader does. */
    public static final String FILE_PATH = "_file_path";

    private EventJson() {}

    /** The line Spark's JSON writer produces for this event, without a line separator. */
    public static String toJson(Event event) {
        return EventJsonWriter.appendJson(new StringBuilder(112), event).toString();
    }

    /** A timestamp as Spark's JSON writer formats it: {@code 2025-03-01T00:00:00.000Z}. */
    public static String timestampText(Instant ts) {
        return EventJsonWriter.appendTimestamp(new StringBuilder(24), ts).toString();
    }

    /**
     * Parses one JSON line.
     *
     * @throws EventParseException if the line is not one JSON object or a column's value does not
     *     convert to its type; the message says why
     */
    public static Event parse(String line) {
        return parse(line, null, null);
    }

    /**
     * Parses one JSON line as Spark's JSON reader does in its default mode, PERMISSIVE (without a
     * corrupt-record column, as the course reads): always a row, and why the line was not clean, if
     * it was not (what Spark's {@code _corrupt_record} would flag), measured on Spark 4.0.4:
     *
     * <ul>
     *   <li>a value of the wrong type is null in the row and the other columns are read (Spark's
     *       partial results); of a repeated field, a later value that does not convert leaves the
     *       earlier one;
     *   <li>a line that is not one JSON object (not JSON, cut short, a number, a string, {@code
     *       null}) is a row of nulls;
     *   <li>text after a complete object is ignored (the row has the object's values; the problem
     *       says the text was ignored).
     * </ul>
     *
     * Blank lines and top-level arrays are the caller's: Spark skips the first and reads each
     * object of the second as a row ({@link #arrayElements}).
     *
     * @param rescued with a rescued data column, the file's parser ({@link #rescuing}): values of
     *     the wrong type go to the rescued data instead, without a problem; null without one
     * @throws EventParseException only for a blank line ("empty line")
     */
    public static Lenient parseLenient(String line, @Nullable RescuingParser rescued) {
        List<String> problems = new ArrayList<>(1);
        try {
            if (rescued != null) {
                return rescued.parseLenient(line, problems);
            }
            Event event = parse(line, null, problems);
            return new Lenient(event, null, problems.isEmpty() ? null : problems);
        } catch (EventParseException e) {
            if (e.getMessage().equals("empty line")) {
                throw e;
            }
            return new Lenient(new Event(), null, List.of(e.getMessage()));
        }
    }

    /** A line read by {@link #parseLenient}: the row, and why the line was not clean. */
    public static final class Lenient {
        public final Event event;

        /** With a rescued data column, what it holds for the row; null if nothing or without. */
        @Nullable public final String rescuedData;

        /** Why the line was not clean ({@code "; "} between reasons), or null if it was. */
        @Nullable public final String problem;

        Lenient(Event event, @Nullable String rescuedData, @Nullable List<String> problems) {
            this.event = event;
            this.rescuedData = rescuedData;
            this.problem = problems == null ? null : String.join("; ", problems);
        }
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
                            : EventJsonWriter.appendString(
                                            EventJsonWriter.appendString(
                                                            new StringBuilder(), FILE_PATH)
                                                    .append(':'),
                                            filePath)
                                    .toString();
        }

        public Rescued parse(String line) {
            names.clear();
            values.clear();
            Event event = EventJson.parse(line, this, null);
            return new Rescued(event, names.isEmpty() ? null : rescuedData());
        }

        Lenient parseLenient(String line, List<String> problems) {
            names.clear();
            values.clear();
            Event event = EventJson.parse(line, this, problems);
            return new Lenient(
                    event,
                    names.isEmpty() ? null : rescuedData(),
                    problems.isEmpty() ? null : problems);
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
                EventJsonWriter.appendString(buffer.append(separator), names.get(i))
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
        return arrayElements(line, null);
    }

    /**
     * As {@link #arrayElements(String)}, but text after the array is ignored, as Spark's PERMISSIVE
     * reader ignores it, and named in {@code problems}.
     */
    public static List<String> arrayElements(String line, @Nullable List<String> problems) {
        try (JsonParser p = FACTORY.createParser(line)) {
            JsonToken token = p.nextToken();
            if (token != JsonToken.START_ARRAY) {
                throw new EventParseException(
                        token == null
                                ? "empty line"
                                : "not a JSON array: " + EventColumns.describe(p, token));
            }
            List<String> elements = new ArrayList<>();
            while ((token = p.nextToken()) != JsonToken.END_ARRAY) {
                if (token != JsonToken.START_OBJECT) {
                    throw new EventParseException(
                            "array element "
                                    + (elements.size() + 1)
                                    + " is not a JSON object: "
                                    + (token == null
                                            ? "the line ends"
                                            : EventColumns.describe(p, token)));
                }
                int start = (int) p.currentTokenLocation().getCharOffset();
                p.skipChildren();
                int end = (int) p.currentLocation().getCharOffset();
                elements.add(line.substring(start, end));
            }
            if (problems == null) {
                requireEnd(p, "array");
            } else if (!line.substring((int) p.currentLocation().getCharOffset()).isBlank()) {
                problems.add(
                        "text after the JSON array at column "
                                + p.currentLocation().getColumnNr()
                                + " ignored");
            }
            return elements;
        } catch (JsonProcessingException e) {
            throw new EventParseException("not JSON: " + jsonReason(e), e);
        } catch (IOException e) {
            // A parser over a String does no I/O.
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Without {@code rescued}, unknown fields are skipped; a value that does not convert throws,
     * or, with {@code problems} (Spark's PERMISSIVE mode), is left out (its column keeps what it
     * held: null, or an earlier value of a repeated field, as Spark's partial results do) and named
     * in {@code problems}, which then also names text after the object, ignored.
     */
    private static Event parse(String line, RescuingParser rescued, List<String> problems) {
        try (JsonParser p = FACTORY.createParser(line)) {
            JsonToken token = p.nextToken();
            if (token == null) {
                throw new EventParseException("empty line");
            }
            if (token != JsonToken.START_OBJECT) {
                throw new EventParseException(
                        "not a JSON object: " + EventColumns.describe(p, token));
            }
            Event event = new Event();
            String name;
            while ((name = p.nextFieldName()) != null) {
                JsonToken value = p.nextToken();
                if (rescued != null) {
                    readRescuing(event, name, p, value, line, rescued);
                } else if (problems == null) {
                    if (!EventColumns.readColumn(event, name, p, value, line)) {
                        p.skipChildren();
                    }
                } else {
                    try {
                        if (!EventColumns.readColumn(event, name, p, value, line)) {
                            p.skipChildren();
                        }
                    } catch (EventParseException e) {
                        // The readers throw before they move past the value.
                        problems.add(e.getMessage() + ": value ignored");
                        p.skipChildren();
                    }
                }
            }
            if (problems == null) {
                requireEnd(p);
            } else {
                int end = (int) p.currentLocation().getCharOffset();
                if (!line.substring(end).isBlank()) {
                    problems.add(
                            "text after the JSON object at column "
                                    + p.currentLocation().getColumnNr()
                                    + " ignored");
                }
            }
            return event;
        } catch (JsonProcessingException e) {
            throw new EventParseException("not JSON: " + jsonReason(e), e);
        } catch (IOException e) {
            // A parser over a String does no I/O.
            throw new UncheckedIOException(e);
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
            if (EventColumns.readColumn(event, name, p, value, line)) {
                // The last value of a repeated field wins, in its column or in the rescued data.
                rescued.remove(name);
                return;
            }
        } catch (EventParseException e) {
            // The readers throw before they move past the value: it can still be copied.
            EventColumns.clearColumn(event, name);
        }
        rescued.put(name, p, value);
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
                        EventJsonWriter.appendString(out.append(separator), name).append(':');
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
                EventJsonWriter.appendString(out, p.getText());
                break;
            case VALUE_NUMBER_FLOAT:
                {
                    // A number's text is its source text. NaN and the infinities (allowed, as Spark
                    // does) are not JSON numbers: strings, as Jackson's generator writes them.
                    String text = p.getText();
                    if (Character.isDigit(text.charAt(text.length() - 1))) {
                        out.append(text);
                    } else {
                        EventJsonWriter.appendString(out, text);
                    }
                    break;
                }
            default:
                // integers, true, false, null
                out.append(p.getText());
        }
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
}
