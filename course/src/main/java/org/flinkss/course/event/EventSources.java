package org.flinkss.course.event;

import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.datastream.DataStream;

import org.flinkss.runtime.query.QueryContext;

import javax.annotation.Nullable;

import java.time.Duration;

/** The course's landing files as a stream: Spark's {@code readStream.schema(...).json(folder)}. */
public final class EventSources {

    private EventSources() {}

    /**
     * JSON lines of events under {@code folder} (recursively, {@code *.json} only), read with the
     * course's explicit schema; lines that are not clean come out as Spark's PERMISSIVE reader
     * reads them, with their quarantine record ({@link ParsedEvent#lenient}). With {@code
     * --skip-missing-files}, a planned file that is gone when read comes out as one {@link
     * ParsedEvent#skippedFile} record; without it, the run fails naming the file.
     *
     * @param rescuedData Auto Loader's rescued data column: fields that are not in the schema and
     *     values of the wrong type are kept in {@link ParsedEvent#rescuedData} instead of being
     *     skipped or making the line bad
     */
    public static DataStream<ParsedEvent> jsonFiles(
            QueryContext context,
            String name,
            Path folder,
            @Nullable Duration watermarkDelay,
            boolean rescuedData) {
        return jsonFiles(context, name, folder, watermarkDelay, rescuedData, BadLines.PERMISSIVE);
    }

    /** As above, with what a line that is not clean gives ({@code --bad-lines}). */
    public static DataStream<ParsedEvent> jsonFiles(
            QueryContext context,
            String name,
            Path folder,
            @Nullable Duration watermarkDelay,
            boolean rescuedData,
            BadLines badLines) {
        return jsonFiles(context, name, folder, watermarkDelay, rescuedData, badLines, null);
    }

    /**
     * As above; with {@code newColumns} (schema evolution), a line's fields beyond the event
     * columns are read into {@link ParsedEvent#columns}.
     */
    public static DataStream<ParsedEvent> jsonFiles(
            QueryContext context,
            String name,
            Path folder,
            @Nullable Duration watermarkDelay,
            boolean rescuedData,
            BadLines badLines,
            @Nullable NewColumns newColumns) {
        return context.files(
                name,
                folder,
                ".json",
                new EventLinesFormat(rescuedData, badLines, newColumns),
                watermarkDelay);
    }
}
