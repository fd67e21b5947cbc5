package org.flinkss.course.event;

import org.apache.flink.api.common.typeinfo.TypeInformation;

import org.flinkss.runtime.source.RecordFormat;
import org.flinkss.runtime.source.SplitRecordReader;
import org.flinkss.runtime.source.files.FileSplit;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * JSON lines read with the course's explicit event schema, as Spark's {@code readStream.json}. A
 * line that is not JSON or does not fit the schema becomes, by default ({@link
 * BadLines#PERMISSIVE}), the row Spark's PERMISSIVE reader makes of it together with the record of
 * the line for the quarantine ({@link ParsedEvent#lenient}: see {@link EventJson#parseLenient});
 * with {@link BadLines#QUARANTINE_ONLY}, only a {@link ParsedEvent#bad} record naming the file and
 * line. Blank lines are not records (Spark skips them too). As in Spark, a UTF-8 byte order mark at
 * the start of a line is skipped, and a line that holds an array of objects is one record per
 * object (none for {@code []}); an object of the array that does not fit the schema is a bad record
 * of its own, naming its place in the array, and an array with anything but objects in it is one
 * bad record (see {@link EventJson#arrayElements}). A file skipped because it was gone ({@code
 * --skip-missing-files}) becomes a {@link ParsedEvent#skippedFile}.
 *
 * <p>With a rescued data column (Auto Loader's {@code rescuedDataColumn}), fields that are not in
 * the schema and values of the wrong type are kept in {@link ParsedEvent#rescuedData} with the
 * file's path, as {@link EventJson#parseRescued} says; only lines that are not one JSON object are
 * then bad.
 */
public final class EventLinesFormat implements RecordFormat<ParsedEvent, FileSplit> {

    private static final long serialVersionUID = 1L;

    private static final char BOM = '\uFEFF';

    /** Longest raw text kept in the quarantine for one line. */
    static final int MAX_RAW = 64 * 1024;

    private final boolean rescuedData;
    private final BadLines badLines;
    @Nullable private final NewColumns newColumns;

    /** Unknown fields are skipped; lines that are not clean are read as Spark reads them. */
    public EventLinesFormat() {
        this(false);
    }

    /**
     * @param rescuedData keep what the schema cannot hold in {@link ParsedEvent#rescuedData}
     */
    public EventLinesFormat(boolean rescuedData) {
        this(rescuedData, BadLines.PERMISSIVE);
    }

    /**
     * @param rescuedData keep what the schema cannot hold in {@link ParsedEvent#rescuedData}
     * @param badLines what a line that is not clean gives
     */
    public EventLinesFormat(boolean rescuedData, BadLines badLines) {
        this(rescuedData, badLines, null);
    }

    /**
     * @param newColumns with schema evolution, what makes a line's further fields columns; null to
     *     skip them (or rescue them), as the explicit schema does
     */
    public EventLinesFormat(
            boolean rescuedData, BadLines badLines, @Nullable NewColumns newColumns) {
        this.rescuedData = rescuedData;
        this.badLines = badLines;
        this.newColumns = newColumns;
    }

    @Override
    public SplitRecordReader<ParsedEvent> open(FileSplit split) throws IOException {
        ByteLines in = new ByteLines(split.open(), 1 << 16);
        String file = split.location();
        long skip = linesOf(split.position());
        int skipWithin = withinLine(split.position());
        long lineNo = 0;
        while (lineNo < skip && in.next()) {
            lineNo++;
        }
        long start = lineNo;
        EventJson.RescuingParser rescuing = rescuedData ? EventJson.rescuing(file) : null;
        FastEventJson fast = new FastEventJson();
        return new SplitRecordReader<>() {
            long line = start;

            // The records of a line that holds an array, and how many of them were returned.
            List<ParsedEvent> pending;
            int returned;

            {
                if (skipWithin > 0) {
                    // Restored inside an array line: its first records were emitted already.
                    if (in.next()) {
                        String text = in.text();
                        line++;
                        pending = arrayRecords(text, withoutBom(text), line);
                        returned = Math.min(skipWithin, pending.size());
                    }
                }
            }

            @Override
            public ParsedEvent next() throws IOException {
                if (pending != null) {
                    if (returned < pending.size()) {
                        return pending.get(returned++);
                    }
                    pending = null;
                }
                while (in.next()) {
                    line++;
                    // The plain lines of the course's writers are read from their bytes; the
                    // parser gives up on anything else, which is read from its text below.
                    Event event = fast.parse(in.bytes(), in.start(), in.end());
                    if (event != null) {
                        return ParsedEvent.good(event);
                    }
                    String text = in.text();
                    String json = withoutBom(text);
                    if (json.isBlank()) {
                        continue;
                    }
                    if (!isArray(json)) {
                        return record(text, json, line);
                    }
                    List<ParsedEvent> records = arrayRecords(text, json, line);
                    if (records.size() > 1) {
                        pending = records;
                        returned = 1;
                    }
                    if (!records.isEmpty()) {
                        return records.get(0);
                    }
                }
                return null;
            }

            @Override
            public long position() {
                return pending != null && returned < pending.size()
                        ? insideLine(line - 1, returned)
                        : line;
            }

            @Override
            public void close() throws IOException {
                in.close();
            }

            private ParsedEvent record(String text, String json, long lineNo) {
                return record(text, json, lineNo, "");
            }

            private ParsedEvent record(String text, String json, long lineNo, String where) {
                ParsedEvent read = read(text, json, lineNo, where);
                if (newColumns != null && read.event != null) {
                    newColumns.apply(read, json, file, lineNo);
                }
                return read;
            }

            private ParsedEvent read(String text, String json, long lineNo, String where) {
                if (badLines == BadLines.PERMISSIVE) {
                    EventJson.Lenient read = EventJson.parseLenient(json, rescuing);
                    return read.problem == null
                            ? ParsedEvent.good(read.event, read.rescuedData)
                            : lenient(
                                    read.event,
                                    read.rescuedData,
                                    file,
                                    lineNo,
                                    text,
                                    where + read.problem);
                }
                try {
                    return parse(json);
                } catch (EventParseException e) {
                    return bad(file, lineNo, text, where + e.getMessage());
                }
            }

            /**
             * One record per object of the array, in order; one bad record (a row of nulls, when
             * permissive) if it is no array of objects.
             */
            private List<ParsedEvent> arrayRecords(String text, String json, long lineNo) {
                List<String> elements;
                List<String> trailing = new ArrayList<>(0);
                try {
                    elements =
                            EventJson.arrayElements(
                                    json, badLines == BadLines.PERMISSIVE ? trailing : null);
                } catch (EventParseException e) {
                    return List.of(
                            badLines == BadLines.PERMISSIVE
                                    ? lenient(new Event(), null, file, lineNo, text, e.getMessage())
                                    : bad(file, lineNo, text, e.getMessage()));
                }
                List<ParsedEvent> records = new ArrayList<>(elements.size());
                for (int i = 0; i < elements.size(); i++) {
                    String where = "array element " + (i + 1) + " of " + elements.size() + ": ";
                    ParsedEvent r = record(text, elements.get(i), lineNo, where);
                    if (i == 0 && !trailing.isEmpty()) {
                        // The line's first record carries the text ignored after the array.
                        r =
                                r.isQuarantined()
                                        ? lenient(
                                                r.event,
                                                r.rescuedData,
                                                file,
                                                lineNo,
                                                text,
                                                r.reason + "; " + trailing.get(0))
                                        : lenient(
                                                r.event,
                                                r.rescuedData,
                                                file,
                                                lineNo,
                                                text,
                                                trailing.get(0));
                    }
                    records.add(r);
                }
                return records;
            }

            private ParsedEvent parse(String json) {
                if (rescuing == null) {
                    return ParsedEvent.good(EventJson.parse(json));
                }
                EventJson.Rescued read = rescuing.parse(json);
                return ParsedEvent.good(read.event, read.rescuedData);
            }
        };
    }

    private static ParsedEvent bad(String file, long line, String text, String reason) {
        return ParsedEvent.bad(file, line, raw(text), reason);
    }

    private static ParsedEvent lenient(
            Event event, String rescuedData, String file, long line, String text, String reason) {
        return ParsedEvent.lenient(event, rescuedData, file, line, raw(text), reason);
    }

    private static String raw(String text) {
        return text.length() > MAX_RAW ? text.substring(0, MAX_RAW) : text;
    }

    /**
     * The line without one leading UTF-8 byte order mark: Spark's parser (Jackson reading the
     * line's bytes) skips one there, and only there; a second one, or one after a space, makes the
     * line corrupt in Spark too.
     */
    static String withoutBom(String line) {
        return !line.isEmpty() && line.charAt(0) == BOM ? line.substring(1) : line;
    }

    /** A line whose JSON starts with '[': a top-level array. */
    public static boolean isArray(String json) {
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            if (c != ' ' && c != '\t' && c != '\r') {
                return c == '[';
            }
        }
        return false;
    }

    // A split's position is the number of lines read, as it always was; inside a line that holds
    // an array (a checkpoint between two of its records) it is negative: the lines before that
    // line, and how many of its records were emitted. Positions in older checkpoints are all lines.

    static long insideLine(long linesBefore, int recordsOfLine) {
        return ~((linesBefore << 32) | recordsOfLine);
    }

    static long linesOf(long position) {
        return position >= 0 ? position : ~position >>> 32;
    }

    static int withinLine(long position) {
        return position >= 0 ? 0 : (int) (~position & 0xFFFFFFFFL);
    }

    @Override
    public ParsedEvent skipped(FileSplit split, String reason) {
        return ParsedEvent.skippedFile(split.location(), split.batchId(), reason);
    }

    @Override
    public long eventTime(ParsedEvent record) {
        return record.event == null || record.event.eventTs == null
                ? Long.MIN_VALUE
                : record.event.eventTs.toEpochMilli();
    }

    @Override
    public boolean isBad(ParsedEvent record) {
        return record.isQuarantined();
    }

    /** bronze, the pipeline and a landing-files SQL table accept {@code --skip-missing-files}. */
    @Override
    public boolean skipsMissingFiles() {
        return true;
    }

    @Override
    public TypeInformation<ParsedEvent> producedType() {
        return TypeInformation.of(ParsedEvent.class);
    }
}
