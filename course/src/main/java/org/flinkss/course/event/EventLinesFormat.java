package org.flinkss.course.event;

import org.apache.flink.api.common.typeinfo.TypeInformation;

import org.flinkss.runtime.source.RecordFormat;
import org.flinkss.runtime.source.SplitRecordReader;
import org.flinkss.runtime.source.files.FileSplit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;

/**
 * JSON lines read with the course's explicit event schema, as Spark's {@code readStream.json}. A
 * line that is not JSON or does not fit the schema becomes a {@link ParsedEvent#bad} record naming
 * the file and line; blank lines are not records (Spark skips them too). A file skipped because it
 * was gone ({@code --skip-missing-files}) becomes a {@link ParsedEvent#skippedFile}.
 *
 * <p>With a rescued data column (Auto Loader's {@code rescuedDataColumn}), fields that are not in
 * the schema and values of the wrong type are kept in {@link ParsedEvent#rescuedData} with the
 * file's path, as {@link EventJson#parseRescued} says; only lines that are not one JSON object are
 * then bad.
 */
public final class EventLinesFormat implements RecordFormat<ParsedEvent, FileSplit> {

    private static final long serialVersionUID = 1L;

    /** Longest raw text kept in the quarantine for one line. */
    static final int MAX_RAW = 64 * 1024;

    private final boolean rescuedData;

    /** Unknown fields are skipped, and values of the wrong type make a line bad. */
    public EventLinesFormat() {
        this(false);
    }

    /**
     * @param rescuedData keep what the schema cannot hold in {@link ParsedEvent#rescuedData}
     */
    public EventLinesFormat(boolean rescuedData) {
        this.rescuedData = rescuedData;
    }

    @Override
    public SplitRecordReader<ParsedEvent> open(FileSplit split) throws IOException {
        BufferedReader in =
                new BufferedReader(
                        new InputStreamReader(
                                Files.newInputStream(split.path()), StandardCharsets.UTF_8),
                        1 << 16);
        String file = split.path().toString();
        long skip = split.position();
        long lineNo = 0;
        while (lineNo < skip && in.readLine() != null) {
            lineNo++;
        }
        long start = lineNo;
        EventJson.RescuingParser rescuing = rescuedData ? EventJson.rescuing(file) : null;
        return new SplitRecordReader<>() {
            long line = start;

            @Override
            public ParsedEvent next() throws IOException {
                String text;
                while ((text = in.readLine()) != null) {
                    line++;
                    if (!text.isBlank()) {
                        try {
                            if (rescuing == null) {
                                return ParsedEvent.good(EventJson.parse(text));
                            }
                            EventJson.Rescued read = rescuing.parse(text);
                            return ParsedEvent.good(read.event, read.rescuedData);
                        } catch (EventParseException e) {
                            String raw =
                                    text.length() > MAX_RAW ? text.substring(0, MAX_RAW) : text;
                            return ParsedEvent.bad(file, line, raw, e.getMessage());
                        }
                    }
                }
                return null;
            }

            @Override
            public long position() {
                return line;
            }

            @Override
            public void close() throws IOException {
                in.close();
            }
        };
    }

    @Override
    public ParsedEvent skipped(FileSplit split, String reason) {
        return ParsedEvent.skippedFile(split.path().toString(), split.batchId(), reason);
    }

    @Override
    public long eventTime(ParsedEvent record) {
        return record.event == null || record.event.eventTs == null
                ? Long.MIN_VALUE
                : record.event.eventTs.toEpochMilli();
    }

    @Override
    public boolean isBad(ParsedEvent record) {
        return record.isBad();
    }

    @Override
    public TypeInformation<ParsedEvent> producedType() {
        return TypeInformation.of(ParsedEvent.class);
    }
}
