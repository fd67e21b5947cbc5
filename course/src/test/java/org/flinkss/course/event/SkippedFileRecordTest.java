package org.flinkss.course.event;

import org.apache.flink.table.data.RowData;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.source.files.FileSplit;

import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The record of a landing file skipped because it was gone, from the format to the table's row. */
class SkippedFileRecordTest {

    @TempDir Path dir;

    @Test
    void openingAFileThatIsGoneSaysNoSuchFile() {
        FileSplit gone = new FileSplit(dir.resolve("part-0.json").toString(), "part-0.json", 2, 0);

        // The reader tells a missing file from other I/O errors by this exception.
        assertThatThrownBy(() -> new EventLinesFormat().open(gone))
                .isInstanceOf(NoSuchFileException.class);
    }

    @Test
    void aSkippedFileIsNeitherAnEventNorABadLineAndBecomesARowOfItsTable() {
        FileSplit gone =
                new FileSplit("/data/events/batch_3/part-0.json", "batch_3/part-0.json", 2, 0);
        EventLinesFormat format = new EventLinesFormat();

        ParsedEvent skipped =
                format.skipped(gone, "gone before it was read (--skip-missing-files)");

        assertThat(skipped.isSkippedFile()).isTrue();
        assertThat(skipped.isBad())
                .as("not a bad line: it must not go to the quarantine")
                .isFalse();
        assertThat(format.isBad(skipped)).isFalse();
        assertThat(format.eventTime(skipped)).isEqualTo(Long.MIN_VALUE);
        assertThat(ParsedEvent.bad("f", 1, "x", "not JSON").isSkippedFile()).isFalse();

        long at = Instant.parse("2025-03-01T00:00:00Z").toEpochMilli();
        RowData row = EventTables.toSkippedFileRow(skipped, "run-1", at);
        assertThat(EventTables.SKIPPED_FILE_ROW.getFieldNames())
                .containsExactly("file", "batch_id", "reason", "skipped_at", "run_id");
        assertThat(row.getString(0).toString()).isEqualTo("/data/events/batch_3/part-0.json");
        assertThat(row.getLong(1)).isEqualTo(2);
        assertThat(row.getString(2).toString())
                .isEqualTo("gone before it was read (--skip-missing-files)");
        assertThat(row.getTimestamp(3, 3).getMillisecond()).isEqualTo(at);
        assertThat(row.getString(4).toString()).isEqualTo("run-1");
    }
}
