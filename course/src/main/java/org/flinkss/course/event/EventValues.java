package org.flinkss.course.event;

import javax.annotation.Nullable;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * A Kafka record's value read as an event: UTF-8 text holding one JSON object with the course's
 * schema. Permissive, it is Spark's {@code from_json(col("value").cast("string"), schema)}
 * (PERMISSIVE), measured on Spark 4.0.4: a value of the wrong type null and the others read, text
 * after the object ignored, and a row of nulls for anything that is not one JSON object (a null or
 * blank value, an array, not JSON). Strict, a value that is not clean gives no event. Either way
 * the problem is named, for a quarantine.
 */
public final class EventValues {

    /** Longest raw text kept for one value. */
    public static final int MAX_RAW = 64 * 1024;

    private EventValues() {}

    /**
     * What a value gives.
     *
     * @param event the event (permissive: never null, a row of nulls at worst; strict: null if the
     *     value is not clean)
     * @param text the value as text, or null if it is null or not UTF-8
     * @param problem why the value is not a clean event, or null
     */
    public record Read(@Nullable Event event, @Nullable String text, @Nullable String problem) {

        /** The text as a quarantine keeps it: at most {@link #MAX_RAW} characters. */
        @Nullable
        public String raw() {
            return text == null || text.length() <= MAX_RAW ? text : text.substring(0, MAX_RAW);
        }
    }

    /** Reads one value, {@code permissive} as Spark's {@code from_json} or strict. */
    public static Read read(@Nullable byte[] value, boolean permissive) {
        Event nulls = permissive ? new Event() : null;
        if (value == null) {
            return new Read(nulls, null, "value is null");
        }
        String text;
        try {
            text =
                    StandardCharsets.UTF_8
                            .newDecoder()
                            .onMalformedInput(CodingErrorAction.REPORT)
                            .onUnmappableCharacter(CodingErrorAction.REPORT)
                            .decode(ByteBuffer.wrap(value))
                            .toString();
        } catch (CharacterCodingException e) {
            return new Read(nulls, null, "value is not UTF-8 text");
        }
        if (!permissive) {
            try {
                return new Read(EventJson.parse(text), text, null);
            } catch (EventParseException e) {
                return new Read(null, text, e.getMessage());
            }
        }
        if (text.isBlank()) {
            return new Read(nulls, text, "empty value");
        }
        if (EventLinesFormat.isArray(text)) {
            // from_json reads one object: an array of them is a row of nulls.
            return new Read(nulls, text, "a JSON array, not one object");
        }
        EventJson.Lenient read = EventJson.parseLenient(text, null);
        return new Read(read.event, text, read.problem);
    }
}
