package org.flinkss.runtime.source.impl;

import org.apache.flink.core.memory.DataOutputSerializer;

import org.junit.jupiter.api.Test;

import org.flinkss.runtime.source.files.FileSplit;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a reader keeps the files it skipped ({@code --skip-missing-files}) and what a run says about
 * a file that is gone.
 */
class SkippedFilesTest {

    private static final FileSplit GONE =
            new FileSplit("/data/events/batch_3/part-0.json", "batch_3/part-0.json", 2, 0);

    @Test
    void skippedFilesAreInTheReadersTotalsAndSurviveItsCheckpointedState() throws Exception {
        BatchStats stats = BatchStats.empty();
        stats.skip(2, GONE.location());
        assertThat(stats.isEmpty())
                .as("a batch that only skipped a file still has something to report")
                .isFalse();
        assertThat(stats.batchId).isEqualTo(2);

        MicroBatchSplit.Serializer<FileSplit> serializer =
                new MicroBatchSplit.Serializer<>(new FileSplit.Serializer());
        MicroBatchSplit<FileSplit> restored =
                serializer.deserialize(
                        serializer.getVersion(),
                        serializer.serialize(MicroBatchSplit.ofStats(stats)));

        assertThat(restored.stats.skipped).containsExactly("/data/events/batch_3/part-0.json");
        assertThat(restored.stats.batchId).isEqualTo(2);
    }

    @Test
    void totalsOfAllReadersListEverySkippedFileOnce() {
        BatchStats a = BatchStats.empty();
        a.skip(2, "/a.json");
        BatchStats b = BatchStats.empty();
        b.add(2, 1000L, false);
        b.skip(2, "/b.json");

        BatchStats total = BatchStats.empty();
        total.merge(a);
        total.merge(b);

        assertThat(total.skipped).containsExactly("/a.json", "/b.json");
        assertThat(total.rows).as("a skipped file is not a row read").isEqualTo(1);
        assertThat(a.copy().skipped).containsExactly("/a.json");
    }

    @Test
    void stateWrittenBeforeSkippedFilesExistedIsStillRead() throws Exception {
        // Version 1 of the reader state: a stats record without the list of skipped files.
        DataOutputSerializer out = new DataOutputSerializer(64);
        out.writeByte(1);
        out.writeLong(4); // batch
        out.writeLong(500); // rows
        out.writeLong(3); // bad rows
        out.writeLong(10);
        out.writeLong(20);
        out.writeDouble(15.0);
        out.writeLong(1);

        MicroBatchSplit<FileSplit> restored =
                new MicroBatchSplit.Serializer<>(new FileSplit.Serializer())
                        .deserialize(1, out.getCopyOfBuffer());

        assertThat(restored.stats.batchId).isEqualTo(4);
        assertThat(restored.stats.rows).isEqualTo(500);
        assertThat(restored.stats.badRows).isEqualTo(3);
        assertThat(restored.stats.skipped).isEmpty();
    }

    @Test
    void aFileGoneWithoutTheFlagIsNamedWithItsBatchAndBothWaysOut() {
        String message = MicroBatchReader.goneMessage("events", GONE, true);

        assertThat(message)
                .contains(
                        "file /data/events/batch_3/part-0.json was planned in batch 2 but is gone"
                                + " before it was read");
        assertThat(message).contains("put it back and run the query again");
        assertThat(message).contains("run it again with --skip-missing-files");
        assertThat(message).contains("records each one");
    }

    @Test
    void aFileGoneFromASourceThatCannotSkipIsNotAdvisedTheFlagTheQueryRefuses() {
        // win5 reads events_bronze, and refuses --skip-missing-files: not advised (issue 38).
        String message = MicroBatchReader.goneMessage("events_bronze", GONE, false);

        assertThat(message).contains("was planned in batch 2 but is gone before it was read");
        assertThat(message).doesNotContain("--skip-missing-files");
        assertThat(message)
                .endsWith(
                        "Put it back and run the query again (batch 2 is read again from the last"
                            + " checkpoint); if it is gone for good, 'reset' the query that wrote"
                            + " it and then this one, to rebuild their tables from what is left.");
    }

    @Test
    void aFileGoneAfterPartOfItWasReadSaysSoInItsSkipRecord() {
        assertThat(MicroBatchReader.skipReason(GONE))
                .isEqualTo("gone before it was read (--skip-missing-files)");
        assertThat(MicroBatchReader.skipReason(GONE.withPosition(120)))
                .isEqualTo(
                        "gone after 120 of its records were read; the rest was skipped"
                                + " (--skip-missing-files)");
        assertThat(MicroBatchReader.goneMessage("events", GONE.withPosition(120), true))
                .contains("is gone (after 120 of its records were read)");
        assertThat(List.of(GONE.location())).containsExactly("/data/events/batch_3/part-0.json");
    }
}
