package org.flinkss.course.event;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EventJsonTest {

    /**
     * Spark's lines for ids 0 and 1 are quoted verbatim in oracle-sample.csv; ids 2 to 4 are its
     * CSV rows in the same form.
     */
    static final List<String> SPARK_LINES =
            List.of(
                    "{\"event_id\":0,\"user_id\":4,\"event_type\":\"view\",\"event_ts\":\"2025-03-01T00:00:00.000Z\",\"amount\":95.94}",
                    "{\"event_id\":1,\"user_id\":50,\"event_type\":\"buy\",\"event_ts\":\"2025-03-01T00:00:10.000Z\",\"amount\":81.61}",
                    "{\"event_id\":2,\"user_id\":2,\"event_type\":\"view\",\"event_ts\":\"2025-03-01T00:00:20.000Z\",\"amount\":65.28}",
                    "{\"event_id\":3,\"user_id\":6,\"event_type\":\"click\",\"event_ts\":\"2025-03-01T00:00:30.000Z\",\"amount\":55.05}",
                    "{\"event_id\":4,\"user_id\":18,\"event_type\":\"view\",\"event_ts\":\"2025-03-01T00:00:40.000Z\",\"amount\":52.68}");

    /** The late event of course topic 11.11, as Spark writes it into batch_3. */
    static final String LATE_EVENT_LINE =
            "{\"event_id\":99999,\"user_id\":7,\"event_type\":\"buy\",\"event_ts\":\"2025-03-01T00:01:00.000Z\",\"amount\":12.5}";

    static final Event LATE_EVENT =
            new Event(99999L, 7, "buy", Instant.parse("2025-03-01T00:01:00Z"), 12.5);

    // ---- writing ----

    /**
     * Issue 37 point 1: doubles as Spark's JSON writer writes them ({@code Double.toString}), and
     * with a lower-case exponent, read by Jackson's fast double parser (the runnable jar's
     * MultiReleaseJarsITCase runs the same through bronze): each is the double its text names.
     */
    @Test
    void doublesAsSparkWritesThemAreTheDoublesTheirTextNames() {
        for (String text :
                List.of(
                        "1.0E15",
                        "1.0E-4",
                        "1.23456789E7",
                        "0.30000000000000004",
                        "4.9E-324",
                        "2.5e-1",
                        "0.1234567890123456",
                        "1.7976931348623157E308")) {
            Event e = EventJson.parse("{\"event_id\":1,\"amount\":" + text + "}");
            assertThat(e.amount).as(text).isEqualTo(Double.parseDouble(text));
            assertThat(EventJson.toJson(e)).contains("\"amount\":" + Double.toString(e.amount));
        }
    }

    @Test
    void writesSparksLinesForTheFirstEvents() {
        for (int id = 0; id < 5; id++) {
            assertThat(EventJson.toJson(EventGenerator.event(id))).isEqualTo(SPARK_LINES.get(id));
        }
    }

    @Test
    void writesTheLateEventOfTopic1111AsSparkDoes() {
        assertThat(EventJson.toJson(LATE_EVENT)).isEqualTo(LATE_EVENT_LINE);
    }

    @Test
    void writesTimestampsInMillisecondsAsSparksJsonWriterDoes() {
        // Measured on Spark 4.0.4: to_json and the JSON writer format TIMESTAMP with
        // yyyy-MM-dd'T'HH:mm:ss[.SSS][XXX], so .123456 is written .123 (the value keeps it).
        assertThat(
                        EventJson.toJson(
                                new Event(
                                        1L,
                                        null,
                                        null,
                                        Instant.parse("2025-03-01T00:00:00.123456Z"),
                                        null)))
                .isEqualTo("{\"event_id\":1,\"event_ts\":\"2025-03-01T00:00:00.123Z\"}");
    }

    @Test
    void leavesOutNullFieldsAsSparksIgnoreNullFields() {
        assertThat(EventJson.toJson(new Event(5L, null, "view", null, null)))
                .isEqualTo("{\"event_id\":5,\"event_type\":\"view\"}");
        assertThat(EventJson.toJson(new Event(null, null, null, null, 1.0)))
                .isEqualTo("{\"amount\":1.0}");
        assertThat(EventJson.toJson(new Event())).isEqualTo("{}");
    }

    @Test
    void writesDoublesAsJavaDoesAndNonFiniteOnesAsStrings() {
        assertThat(amountJson(80.0)).isEqualTo("80.0");
        assertThat(amountJson(0.05)).isEqualTo("0.05");
        assertThat(amountJson(1.0E-4)).isEqualTo("1.0E-4");
        assertThat(amountJson(1.0E7)).isEqualTo("1.0E7");
        assertThat(amountJson(-0.0)).isEqualTo("-0.0");
        assertThat(amountJson(Double.NaN)).isEqualTo("\"NaN\"");
        assertThat(amountJson(Double.NEGATIVE_INFINITY)).isEqualTo("\"-Infinity\"");
    }

    @Test
    void escapesQuotesBackslashesAndControlCharactersOnly() {
        Event e = new Event(null, null, "a\"b\\c\nd\te\u0001f/é€😀\u007f", null, null);

        assertThat(EventJson.toJson(e))
                .isEqualTo("{\"event_type\":\"a\\\"b\\\\c\\nd\\te\\u0001f/é€😀\u007f\"}");
        assertThat(EventJson.parse(EventJson.toJson(e))).isEqualTo(e);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "2025-03-01T00:00:00Z, 2025-03-01T00:00:00.000Z",
        "2025-03-01T00:00:00.123999Z, 2025-03-01T00:00:00.123Z",
        "1969-12-31T23:59:59.999Z, 1969-12-31T23:59:59.999Z",
        "0001-01-01T00:00:00Z, 0001-01-01T00:00:00.000Z",
        "+10000-01-01T00:00:00Z, +10000-01-01T00:00:00.000Z",
    })
    void timestampTextIsUtcWithMilliseconds(String instant, String text) {
        assertThat(EventJson.timestampText(Instant.parse(instant))).isEqualTo(text);
    }

    @Test
    void generatedEventsSurviveTheRoundTrip() {
        for (Event e : EventGenerator.events(-1_000, 100_000)) {
            assertThat(EventJson.parse(EventJson.toJson(e))).isEqualTo(e);
        }
    }

    // ---- reading ----

    @Test
    void readsSparksLines() {
        for (int id = 0; id < 5; id++) {
            assertThat(EventJson.parse(SPARK_LINES.get(id)))
                    .isEqualTo(EventGeneratorTest.ORACLE.get(id));
        }
        assertThat(EventJson.parse(LATE_EVENT_LINE)).isEqualTo(LATE_EVENT);
    }

    @Test
    void missingFieldsAndJsonNullsAreNulls() {
        assertThat(EventJson.parse("{}")).isEqualTo(new Event());
        assertThat(EventJson.parse("{\"event_id\":3,\"user_id\":null,\"amount\":null}"))
                .isEqualTo(new Event(3L, null, null, null, null));
    }

    @Test
    void skipsUnknownFieldsWhateverTheirValue() {
        String line =
                "{\"extra\":{\"a\":[1,{\"b\":\"}\"}]},\"event_id\":5,\"more\":[[]],\"x\":null}";

        assertThat(EventJson.parse(line)).isEqualTo(new Event(5L, null, null, null, null));
    }

    @Test
    void aRepeatedFieldKeepsItsLastValue() {
        assertThat(EventJson.parse("{\"event_id\":1,\"event_id\":2}").eventId).isEqualTo(2L);
        assertThat(EventJson.parse("{\"event_id\":1,\"event_id\":null}").eventId).isNull();
    }

    @Test
    void acceptsWhitespaceAndSingleQuotesAsSparksDefaultsDo() {
        assertThat(EventJson.parse("  { 'event_id' : 7 , \"event_type\" : 'buy' }  "))
                .isEqualTo(new Event(7L, null, "buy", null, null));
    }

    @Test
    void convertsNonStringEventTypesToTheirSourceText() {
        assertThat(EventJson.parse("{\"event_type\":4.50}").eventType).isEqualTo("4.50");
        assertThat(EventJson.parse("{\"event_type\":-12}").eventType).isEqualTo("-12");
        assertThat(EventJson.parse("{\"event_type\":true}").eventType).isEqualTo("true");
        assertThat(EventJson.parse("{\"event_type\": {\"a\": [1, 2]} ,\"event_id\":1}").eventType)
                .isEqualTo("{\"a\": [1, 2]}");
        assertThat(EventJson.parse("{\"event_type\":[]}").eventType).isEqualTo("[]");
    }

    @Test
    void readsAnyJsonNumberAndSparksNonFiniteStringsAsAmount() {
        assertThat(EventJson.parse("{\"amount\":80}").amount).isEqualTo(80.0);
        assertThat(EventJson.parse("{\"amount\":-1.5e2}").amount).isEqualTo(-150.0);
        assertThat(EventJson.parse("{\"amount\":\"NaN\"}").amount).isNaN();
        assertThat(EventJson.parse("{\"amount\":NaN}").amount).isNaN();
        assertThat(EventJson.parse("{\"amount\":\"+INF\"}").amount).isInfinite().isPositive();
        assertThat(EventJson.parse("{\"amount\":\"Infinity\"}").amount).isInfinite().isPositive();
        assertThat(EventJson.parse("{\"amount\":\"-Infinity\"}").amount).isInfinite().isNegative();
    }

    @Test
    void readsWholeNumbersAsEventTimeSeconds() {
        assertThat(EventJson.parse("{\"event_ts\":1740787260}").eventTs)
                .isEqualTo(Instant.parse("2025-03-01T00:01:00Z"));
        assertThat(EventJson.parse("{\"event_ts\":-1}").eventTs)
                .isEqualTo(Instant.parse("1969-12-31T23:59:59Z"));
    }

    @ParameterizedTest(name = "\"{0}\" is {1}")
    @CsvSource({
        "2025-03-01T00:01:00.000Z, 2025-03-01T00:01:00Z",
        "2025-03-01T00:01:00Z, 2025-03-01T00:01:00Z",
        "2025-03-01T00:01:00.5Z, 2025-03-01T00:01:00.500Z",
        "2025-03-01T00:01:00.123456789Z, 2025-03-01T00:01:00.123456Z",
        "2025-03-01T00:01:00.123456Z, 2025-03-01T00:01:00.123456Z",
        "2025-03-01T00:01:00.000001Z, 2025-03-01T00:01:00.000001Z",
        "2025-03-01 00:01:00.1234567, 2025-03-01T00:01:00.123456Z",
        "2025-03-01T01:01:00.999999+01:00, 2025-03-01T00:01:00.999999Z",
        "2025-03-01T01:01:00+01:00, 2025-03-01T00:01:00Z",
        "2025-03-01T01:01:00.000+0100, 2025-03-01T00:01:00Z",
        "2025-02-28T19:01:00-05:00, 2025-03-01T00:01:00Z",
        "2025-03-01 00:01:00, 2025-03-01T00:01:00Z",
        "2025-03-01 00:01:00.250, 2025-03-01T00:01:00.250Z",
        "2025-03-01T00:01:00, 2025-03-01T00:01:00Z",
        "2025-03-01T00:01:00.000, 2025-03-01T00:01:00Z",
        "2025-03-01T01:01:00 Europe/Paris, 2025-03-01T00:01:00Z",
        "2025-03-01 00:01:00 UTC, 2025-03-01T00:01:00Z",
        "2025-3-1 0:1:0, 2025-03-01T00:01:00Z",
        "2025-03-01 00:01, 2025-03-01T00:01:00Z",
        "2025-03-01, 2025-03-01T00:00:00Z",
        "2025-03, 2025-03-01T00:00:00Z",
        "' 2025-03-01T00:01:00Z ', 2025-03-01T00:01:00Z",
    })
    void readsTheTimestampFormsSparkCasts(String text, String expected) {
        assertThat(EventJson.parse("{\"event_ts\":\"" + text + "\"}").eventTs)
                .isEqualTo(Instant.parse(expected));
    }

    @ParameterizedTest(name = "[{index}] {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "''| empty line",
                "'   '| empty line",
                "{x| not JSON: Unexpected character ('x' (code 120)): was expecting double-quote to"
                        + " start field name at column 2",
                "{\"event_id\":1| not JSON: Unexpected end-of-input: expected close marker for"
                        + " Object at column 14",
                "{\"event_id\":01}| not JSON: Invalid numeric value: Leading zeroes not allowed at"
                        + " column 14",
                "[{\"event_id\":1}]| not a JSON object: an array",
                "42| not a JSON object: 42",
                "\"text\"| not a JSON object: \"text\"",
                "{\"event_id\":1} x| trailing content after the JSON object at column 15",
                "{\"event_id\":1}{}| trailing content after the JSON object at column 15",
                "{\"event_id\":\"abc\"}| event_id: expected a whole number, got \"abc\"",
                "{\"event_id\":\"12\"}| event_id: expected a whole number, got \"12\"",
                "{\"event_id\":1.0}| event_id: expected a whole number, got 1.0",
                "{\"event_id\":99999999999999999999}| event_id: 99999999999999999999 is out of"
                        + " range for LONG",
                "{\"user_id\":4.0}| user_id: expected a whole number, got 4.0",
                "{\"user_id\":3000000000}| user_id: 3000000000 is out of range for INT",
                "{\"user_id\":[4]}| user_id: expected a whole number, got an array",
                "{\"amount\":\"1.5\"}| amount: expected a number, got \"1.5\"",
                "{\"amount\":\"\"}| amount: expected a number, got \"\"",
                "{\"amount\":true}| amount: expected a number, got true",
                "{\"event_ts\":\"yesterday\"}| event_ts: cannot parse \"yesterday\" as a timestamp",
                "{\"event_ts\":\"\"}| event_ts: cannot parse \"\" as a timestamp",
                "{\"event_ts\":\"2025-02-30 00:00:00\"}| event_ts: cannot parse \"2025-02-30"
                        + " 00:00:00\" as a timestamp",
                "{\"event_ts\":\"2025-03-01T00:01Z\"}| event_ts: cannot parse \"2025-03-01T00:01Z\""
                        + " as a timestamp",
                "{\"event_ts\":\"2025-03-01T00:01:00 Mars/Olympus\"}| event_ts: cannot parse"
                        + " \"2025-03-01T00:01:00 Mars/Olympus\" as a timestamp",
                "{\"event_ts\":1.5}| event_ts: expected a timestamp string or whole seconds, got"
                        + " 1.5",
                "{\"event_ts\":99999999999999}| event_ts: 99999999999999 seconds is out of range"
                        + " for TIMESTAMP",
                "{\"event_ts\":{}}| event_ts: expected a timestamp string or whole seconds, got an"
                        + " object",
            })
    void rejectsALineWithItsReason(String line, String reason) {
        assertThatThrownBy(() -> EventJson.parse(line))
                .isInstanceOf(EventParseException.class)
                .hasMessage(reason);
    }

    // ---- reading with a rescued data column (Auto Loader's rescuedDataColumn) ----

    static final String FILE = "/landing/batch_1/part-0.json";

    @Test
    void aLineThatFitsTheSchemaRescuesNothing() {
        for (String line : SPARK_LINES) {
            EventJson.Rescued read = EventJson.parseRescued(line, FILE);
            assertThat(read.rescuedData).isNull();
            assertThat(read.event).isEqualTo(EventJson.parse(line));
        }
        assertThat(EventJson.parseRescued("{\"event_id\":3,\"user_id\":null}", FILE).rescuedData)
                .isNull();
        assertThat(EventJson.parseRescued("{}", FILE).rescuedData).isNull();
    }

    @Test
    void rescuesUnknownFieldsWithTheirValuesAndTheFilePath() {
        String line =
                "{\"event_id\":5,\"channel\":\"web\",\"user_id\":4,\"score\":4.50,\"vip\":true,\"coupon\":null}";

        EventJson.Rescued read = EventJson.parseRescued(line, FILE);

        assertThat(read.event).isEqualTo(new Event(5L, 4, null, null, null));
        assertThat(read.rescuedData)
                .isEqualTo(
                        "{\"channel\":\"web\",\"score\":4.50,\"vip\":true,\"coupon\":null,\"_file_path\":\""
                                + FILE
                                + "\"}");
    }

    @Test
    void keepsNestedObjectsAndArraysAsCompactJsonText() {
        String line =
                "{\"event_id\":1, \"device\" : { \"os\" : \"ios\", \"tags\": [1, 2.0, {\"a\": []},"
                        + " {}] }, \"list\":[ ]}";

        EventJson.Rescued read = EventJson.parseRescued(line, null);

        assertThat(read.event.eventId).isEqualTo(1L);
        assertThat(read.rescuedData)
                .isEqualTo(
                        "{\"device\":{\"os\":\"ios\",\"tags\":[1,2.0,{\"a\":[]},{}]},\"list\":[]}");
    }

    @Test
    void aValueOfTheWrongTypeIsNullInItsColumnAndKeptInTheRescuedData() {
        String line =
                "{\"event_id\":\"12\",\"user_id\":4.0,\"event_type\":\"view\","
                        + "\"event_ts\":\"yesterday\",\"amount\":[1.5]}";

        EventJson.Rescued read = EventJson.parseRescued(line, FILE);

        assertThat(read.event).isEqualTo(new Event(null, null, "view", null, null));
        assertThat(read.rescuedData)
                .isEqualTo(
                        "{\"event_id\":\"12\",\"user_id\":4.0,"
                                + "\"event_ts\":\"yesterday\",\"amount\":[1.5],\"_file_path\":\""
                                + FILE
                                + "\"}");
        // Out of range is a mismatch too; a non-string event_type is not (Spark reads its text).
        assertThat(
                        EventJson.parseRescued(
                                "{\"event_id\":99999999999999999999,\"event_type\":7}", null))
                .satisfies(
                        r -> assertThat(r.event).isEqualTo(new Event(null, null, "7", null, null)))
                .satisfies(
                        r ->
                                assertThat(r.rescuedData)
                                        .isEqualTo("{\"event_id\":99999999999999999999}"));
    }

    @Test
    void aFieldNamedInAnotherCaseIsRescuedAsAutoLoaderDoesByDefault() {
        EventJson.Rescued read = EventJson.parseRescued("{\"Event_ID\":7,\"event_id\":8}", null);

        assertThat(read.event.eventId).isEqualTo(8L);
        assertThat(read.rescuedData).isEqualTo("{\"Event_ID\":7}");
    }

    @Test
    void rescuedNamesAndValuesAreEscapedAsValidJson() throws Exception {
        // Single quotes and NaN are Spark's defaults but not JSON: rescued as JSON strings.
        String line =
                "{'we\"ird\\\\n"
                    + "ame\\u0001':'it\\'s',\"tab\":\"a\\tb\\u00e9\\/\",\"n\":NaN,\"m\":[-Infinity,"
                    + " 1e3]}";

        EventJson.Rescued read = EventJson.parseRescued(line, "C:\\in\\\"x\".json");

        assertThat(read.rescuedData)
                .isEqualTo(
                        "{\"we\\\"ird\\\\n"
                            + "ame\\u0001\":\"it's\",\"tab\":\"a\\tbé/\","
                            + "\"n\":\"NaN\",\"m\":[\"-Infinity\",1e3],\"_file_path\":\"C:\\\\in\\\\\\\"x\\\".json\"}");
        // A strict JSON reader (no single quotes, no NaN) reads it back.
        JsonNode strict = new ObjectMapper().readTree(read.rescuedData);
        assertThat(strict.path("we\"ird\\name\u0001").asText()).isEqualTo("it's");
        assertThat(strict.path("_file_path").asText()).isEqualTo("C:\\in\\\"x\".json");
    }

    @Test
    void aRepeatedFieldKeepsItsLastValueInItsColumnOrInTheRescuedData() {
        assertThat(EventJson.parseRescued("{\"event_id\":\"x\",\"event_id\":2}", null))
                .satisfies(r -> assertThat(r.event.eventId).isEqualTo(2L))
                .satisfies(r -> assertThat(r.rescuedData).isNull());
        assertThat(EventJson.parseRescued("{\"event_id\":2,\"event_id\":\"x\"}", null))
                .satisfies(r -> assertThat(r.event.eventId).isNull())
                .satisfies(r -> assertThat(r.rescuedData).isEqualTo("{\"event_id\":\"x\"}"));
        assertThat(EventJson.parseRescued("{\"extra\":1,\"extra\":2}", null).rescuedData)
                .isEqualTo("{\"extra\":2}");
    }

    @ParameterizedTest(name = "[{index}] {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "''| empty line",
                "not json| not JSON: Unrecognized token 'not'",
                "{\"event_id\":1,\"extra\":[1,| not JSON: Unexpected end-of-input",
                "[{\"event_id\":1}]| not a JSON object: an array",
                "{\"event_id\":1} x| trailing content after the JSON object at column 15",
            })
    void aLineThatIsNotOneJsonObjectIsStillRefused(String line, String reason) {
        assertThatThrownBy(() -> EventJson.parseRescued(line, FILE))
                .isInstanceOf(EventParseException.class)
                .hasMessageStartingWith(reason);
    }

    private static String amountJson(double amount) {
        String json = EventJson.toJson(new Event(null, null, null, null, amount));
        return json.substring("{\"amount\":".length(), json.length() - 1);
    }
}
