package org.flinkss.course.event;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.source.SplitRecordReader;
import org.flinkss.runtime.source.files.FileSplit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static java.util.stream.Collectors.toList;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Lines of a landing file as Spark 4.0.4 reads them with the course's schema (each case measured
 * there with the course's {@code readStream.schema(...).json(...)}; a line Spark makes a corrupt
 * record is a bad record here, for the quarantine).
 */
class EventLinesFormatTest {

    @TempDir Path dir;

    private static final char BOM = '\uFEFF';

    private FileSplit split(String... lines) throws IOException {
        Path file = dir.resolve("part-0.json");
        Files.writeString(file, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
        return new FileSplit(file.toString(), "part-0.json", 0, 0);
    }

    private static List<ParsedEvent> read(EventLinesFormat format, FileSplit split)
            throws IOException {
        List<ParsedEvent> records = new ArrayList<>();
        try (SplitRecordReader<ParsedEvent> reader = format.open(split)) {
            ParsedEvent record;
            while ((record = reader.next()) != null) {
                records.add(record);
            }
        }
        return records;
    }

    /** With {@code --bad-lines quarantine-only}: a line that is not clean is a bad record only. */
    private static List<ParsedEvent> read(FileSplit split) throws IOException {
        return read(new EventLinesFormat(false, BadLines.QUARANTINE_ONLY), split);
    }

    /** Event ids of the good records, null for a bad one, in order. */
    private static List<Object> ids(List<ParsedEvent> records) {
        List<Object> ids = new ArrayList<>();
        for (ParsedEvent r : records) {
            ids.add(r.isBad() ? "bad line " + r.line : r.event.eventId);
        }
        return ids;
    }

    @Test
    void aLargeFileOfMixedLinesAndLineEndsIsReadLineByLineAndRestoresAtAnyRecord()
            throws IOException {
        // Larger than the reader's 64 KB buffer, so that lines straddle its refills; every kind
        // of line end, and lines that only the general parser reads, between the plain ones.
        Random random = new Random(11);
        String[] ends = {"\n", "\r\n", "\r"};
        StringBuilder text = new StringBuilder();
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 4000; i++) {
            String line;
            switch (random.nextInt(12)) {
                case 0:
                    line = "";
                    break;
                case 1:
                    line = " " + EventJson.toJson(EventGenerator.event(i));
                    break;
                case 2:
                    line = "{\"event_id\":oops}";
                    break;
                case 3:
                    line = EventJson.toJson(EventGenerator.event(i)) + "x";
                    break;
                case 4:
                    line = BOM + EventJson.toJson(EventGenerator.event(i));
                    break;
                default:
                    line = EventJson.toJson(EventGenerator.event(i));
            }
            lines.add(line);
            text.append(line).append(ends[random.nextInt(ends.length)]);
        }
        Path file = dir.resolve("part-1.json");
        Files.writeString(file, text, StandardCharsets.UTF_8);
        assertThat(Files.size(file)).isGreaterThan(3 * (1 << 16));

        // The lines as a reader splits them: a '\r' end before an empty line's '\n' is one end.
        lines = new BufferedReader(new StringReader(text.toString())).lines().collect(toList());
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String json = EventLinesFormat.withoutBom(lines.get(i));
            if (json.isBlank()) {
                continue;
            }
            try {
                expected.add((i + 1) + " " + EventJson.parse(json));
            } catch (EventParseException e) {
                expected.add((i + 1) + " bad: " + e.getMessage());
            }
        }
        List<String> actual = new ArrayList<>();
        for (ParsedEvent r : read(new FileSplit(file.toString(), "part-1.json", 0, 0))) {
            actual.add(r.isBad() ? r.line + " bad: " + r.reason : "? " + r.event);
        }
        // Good records carry no line number: number them as the expected ones are.
        for (int k = 0, e = 0; k < actual.size(); k++, e++) {
            if (actual.get(k).startsWith("? ")) {
                String want = expected.get(e);
                actual.set(k, want.substring(0, want.indexOf(' ')) + actual.get(k).substring(1));
            }
        }
        assertThat(actual).hasSize(expected.size()).isEqualTo(expected);

        // A reader restored at a checkpoint's position (lines read) goes on with the next record.
        FileSplit split = new FileSplit(file.toString(), "part-1.json", 0, 0);
        List<ParsedEvent> all = new ArrayList<>();
        List<Long> positions = new ArrayList<>();
        try (SplitRecordReader<ParsedEvent> reader =
                new EventLinesFormat(false, BadLines.QUARANTINE_ONLY).open(split)) {
            ParsedEvent record;
            while ((record = reader.next()) != null) {
                all.add(record);
                positions.add(reader.position());
            }
        }
        for (int i = 0; i < positions.size(); i += 97) {
            assertThat(read(split.withPosition(positions.get(i))))
                    .as("restored after record %d", i + 1)
                    .isEqualTo(all.subList(i + 1, all.size()));
        }
    }

    @Test
    void aByteOrderMarkAtTheStartOfALineIsSkippedAsSparkSkipsIt() throws IOException {
        List<ParsedEvent> records =
                read(
                        split(
                                BOM + "{\"event_id\":1,\"event_type\":\"view\"}",
                                BOM + "[{\"event_id\":2}]",
                                BOM + "",
                                BOM + "   ",
                                // Spark too makes these corrupt: only one mark, only at the start.
                                "" + BOM + BOM + "{\"event_id\":3}",
                                " " + BOM + "{\"event_id\":4}"));

        assertThat(ids(records)).containsExactly(1L, 2L, "bad line 5", "bad line 6");
        assertThat(records.get(0).event.eventType).isEqualTo("view");
        assertThat(records.get(2).raw).isEqualTo("" + BOM + BOM + "{\"event_id\":3}");
    }

    @Test
    void aLineHoldingAnArrayOfObjectsIsOneRecordPerObjectAndAnEmptyArrayNone() throws IOException {
        List<ParsedEvent> records =
                read(
                        split(
                                "[{\"event_id\":1,\"user_id\":7},{\"event_id\":2}]",
                                "[]",
                                "  [ {\"event_id\":3} ]",
                                "[{},{\"event_id\":4}]",
                                "{\"event_id\":5}"));

        assertThat(records).noneMatch(ParsedEvent::isBad);
        assertThat(records)
                .extracting(r -> r.event)
                .containsExactly(
                        new Event(1L, 7, null, null, null),
                        new Event(2L, null, null, null, null),
                        new Event(3L, null, null, null, null),
                        new Event(),
                        new Event(4L, null, null, null, null),
                        new Event(5L, null, null, null, null));
    }

    @Test
    void anArrayWithAnythingButObjectsIsOneBadRecordAsInSpark() throws IOException {
        List<ParsedEvent> records =
                read(
                        split(
                                "[{\"event_id\":1}, 5]",
                                "[null, {\"event_id\":2}]",
                                "[[{\"event_id\":3}]]",
                                "[{\"event_id\":4},{\"event_id\":]",
                                "[{\"event_id\":5}] x"));

        assertThat(ids(records))
                .containsExactly(
                        "bad line 1", "bad line 2", "bad line 3", "bad line 4", "bad line 5");
        assertThat(records.get(0).reason).isEqualTo("array element 2 is not a JSON object: 5");
        assertThat(records.get(1).reason).isEqualTo("array element 1 is not a JSON object: null");
        assertThat(records.get(2).reason)
                .isEqualTo("array element 1 is not a JSON object: an array");
        assertThat(records.get(3).reason)
                .startsWith("not JSON: Unexpected character (']' (code 93))")
                .endsWith("at column 29");
        assertThat(records.get(4).reason)
                .isEqualTo("trailing content after the JSON array at column 17");
        assertThat(records.get(0).raw).isEqualTo("[{\"event_id\":1}, 5]");
    }

    @Test
    void anObjectOfAnArrayThatDoesNotFitTheSchemaIsABadRecordOfItsOwn() throws IOException {
        // Spark nulls the value and flags the line; the project quarantines the object and keeps
        // the others, so that every row Spark reads is a row of bronze or of the quarantine.
        List<ParsedEvent> records =
                read(split("[{\"event_id\":\"x\"},{\"event_id\":7,\"event_type\":\"buy\"}]"));

        assertThat(ids(records)).containsExactly("bad line 1", 7L);
        assertThat(records.get(0).reason)
                .isEqualTo("array element 1 of 2: event_id: expected a whole number, got \"x\"");
        assertThat(records.get(0).raw)
                .isEqualTo("[{\"event_id\":\"x\"},{\"event_id\":7,\"event_type\":\"buy\"}]");
    }

    /**
     * Issue 37 point 3, each case as Spark 4.0.4's PERMISSIVE reader read it (spark-diff's oracle,
     * {@code readStream.schema(...).json}): a value of the wrong type is null and the others are
     * read; a line that is not one JSON object is a row of nulls; text after the object (or array)
     * is ignored; a later value of a repeated field that does not convert leaves the earlier one.
     * Every such line is also the quarantine's record of it; blank lines are nothing.
     */
    @Test
    void permissiveLinesGiveTheRowsSparkGivesAndTheirQuarantineRecords() throws IOException {
        String ts = "\"event_ts\":\"2025-03-01T00:00:00.000Z\"";
        FileSplit split =
                split(
                        "{\"event_id\":1,\"user_id\":\"u7\",\"event_type\":\"view\"," + ts + "}",
                        "{\"event_id\":2,\"event_ts\":\"2025-02-30T00:00:00Z\",\"amount\":1.5}",
                        "{\"event_id\":1.5,\"user_id\":1}",
                        "{\"event_id\":4,\"amount\":\"12.5\"}",
                        "hello",
                        "{\"event_id\":6,\"user_id\":1",
                        "[1,2,3]",
                        "{\"event_id\":438} trailing",
                        "   ",
                        "null",
                        "{\"event_id\":27,\"user_id\":1,\"user_id\":\"bad\"}",
                        "[{\"event_id\":5}] x",
                        "[{\"event_id\":\"x\"},{\"event_id\":7,\"event_type\":\"buy\"}]",
                        "{\"event_id\":9,\"user_id\":1}");
        Instant t = Instant.parse("2025-03-01T00:00:00Z");

        List<ParsedEvent> records = read(new EventLinesFormat(), split);

        assertThat(records)
                .extracting(r -> r.event)
                .containsExactly(
                        new Event(1L, null, "view", t, null),
                        new Event(2L, null, null, null, 1.5),
                        new Event(null, 1, null, null, null),
                        new Event(4L, null, null, null, null),
                        new Event(),
                        new Event(),
                        new Event(),
                        new Event(438L, null, null, null, null),
                        new Event(),
                        new Event(27L, 1, null, null, null),
                        new Event(5L, null, null, null, null),
                        new Event(),
                        new Event(7L, null, "buy", null, null),
                        new Event(9L, 1, null, null, null));
        assertThat(records)
                .extracting(r -> r.line, r -> r.reason)
                .containsExactly(
                        tuple(1L, "user_id: expected a whole number, got \"u7\": value ignored"),
                        tuple(
                                2L,
                                "event_ts: cannot parse \"2025-02-30T00:00:00Z\" as a timestamp:"
                                        + " value ignored"),
                        tuple(3L, "event_id: expected a whole number, got 1.5: value ignored"),
                        tuple(4L, "amount: expected a number, got \"12.5\": value ignored"),
                        tuple(
                                5L,
                                "not JSON: Unrecognized token 'hello': was expecting (JSON String,"
                                        + " Number (or 'NaN'/'+INF'/'-INF'), Array, Object or"
                                        + " token 'null', 'true' or 'false') at column 6"),
                        tuple(
                                6L,
                                "not JSON: Unexpected end-of-input: expected close marker for"
                                        + " Object at column 26"),
                        tuple(7L, "array element 1 is not a JSON object: 1"),
                        tuple(8L, "text after the JSON object at column 17 ignored"),
                        tuple(10L, "not a JSON object: null"),
                        tuple(11L, "user_id: expected a whole number, got \"bad\": value ignored"),
                        tuple(12L, "text after the JSON array at column 17 ignored"),
                        tuple(
                                13L,
                                "array element 1 of 2: event_id: expected a whole number, got"
                                        + " \"x\": value ignored"),
                        tuple(null, null),
                        tuple(null, null));
        assertThat(records.get(4).raw).isEqualTo("hello");
        assertThat(records).noneMatch(ParsedEvent::isBad);
        assertThat(records.stream().filter(ParsedEvent::isQuarantined)).hasSize(12);
    }

    @Test
    void withRescuedDataEachObjectOfAnArrayIsRescuedOnItsOwn() throws IOException {
        FileSplit split = split("[{\"event_id\":\"x\"},{\"event_id\":7,\"channel\":\"web\"}]");

        List<ParsedEvent> records = read(new EventLinesFormat(true), split);

        assertThat(records).noneMatch(ParsedEvent::isBad);
        assertThat(records)
                .extracting(r -> r.rescuedData)
                .containsExactly(
                        "{\"event_id\":\"x\",\"_file_path\":\"" + split.location() + "\"}",
                        "{\"channel\":\"web\",\"_file_path\":\"" + split.location() + "\"}");
    }

    @Test
    void aReaderRestoredInsideAnArrayLineGoesOnWithItsNextObject() throws IOException {
        FileSplit split =
                split(
                        "{\"event_id\":1}",
                        "[{\"event_id\":2},{\"event_id\":3},{\"event_id\":4}]",
                        "{\"event_id\":5}");
        EventLinesFormat format = new EventLinesFormat();

        // Step 1: the position after every record, as a checkpoint would take it.
        List<Long> positions = new ArrayList<>();
        try (SplitRecordReader<ParsedEvent> reader = format.open(split)) {
            while (reader.next() != null) {
                positions.add(reader.position());
            }
        }
        // Between lines, the position is the number of lines read, as in older checkpoints.
        assertThat(positions.get(0)).isEqualTo(1);
        assertThat(positions.get(3)).isEqualTo(2);
        assertThat(positions.get(4)).isEqualTo(3);

        // Step 2: a reader restored at each of them emits exactly the rest of the file.
        for (int i = 0; i < positions.size(); i++) {
            List<Object> rest = ids(read(format, split.withPosition(positions.get(i))));
            assertThat(rest)
                    .as("restored after record %d", i + 1)
                    .containsExactlyElementsOf(
                            List.<Object>of(1L, 2L, 3L, 4L, 5L).subList(i + 1, 5));
        }
    }
}
