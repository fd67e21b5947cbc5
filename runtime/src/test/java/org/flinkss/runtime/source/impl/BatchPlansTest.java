package org.flinkss.runtime.source.impl;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.source.files.FileSplit;
import org.flinkss.runtime.storage.Storage;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class BatchPlansTest {

    @TempDir Path checkpoint;

    @Test
    void aBatchIsReadAgainWithTheSplitsItWasPlannedWith() throws Exception {
        BatchPlans<FileSplit> plans =
                new BatchPlans<>(
                        Storage.location(checkpoint.resolve("events").toFile()),
                        new FileSplit.Serializer());
        List<FileSplit> batch2 =
                List.of(
                        new FileSplit("/in/batch_3/a.json", "batch_3/a.json", 2, 0),
                        new FileSplit("/in/batch_3/b.json", "batch_3/b.json", 2, 0));

        assertThat(plans.read(2)).as("never planned").isNull();
        plans.write(2, batch2);

        // Another enumerator of the same source (a restarted job) finds the plan.
        List<FileSplit> again =
                new BatchPlans<>(
                                Storage.location(checkpoint.resolve("events").toFile()),
                                new FileSplit.Serializer())
                        .read(2);
        assertThat(again)
                .extracting(FileSplit::key)
                .containsExactly("batch_3/a.json", "batch_3/b.json");
        assertThat(again).extracting(FileSplit::batchId).containsOnly(2L);
        assertThat(
                        new BatchPlans<>(
                                        Storage.location(checkpoint.resolve("other").toFile()),
                                        new FileSplit.Serializer())
                                .read(2))
                .as("per source")
                .isNull();
    }

    @Test
    void everyBatchsPlanIsKeptSoThatAReplayFromAnOlderCheckpointReadsTheSameSplits()
            throws Exception {
        BatchPlans<FileSplit> plans =
                new BatchPlans<>(
                        Storage.location(checkpoint.resolve("events").toFile()),
                        new FileSplit.Serializer());
        plans.write(9, List.of(new FileSplit("/in/x.json", "x.json", 9, 0)));
        plans.write(10, List.of(new FileSplit("/in/y.json", "y.json", 10, 0)));

        assertThat(plans.read(9)).extracting(FileSplit::key).containsExactly("x.json");
        assertThat(plans.read(10)).extracting(FileSplit::key).containsExactly("y.json");
        try (var files = Files.list(checkpoint.resolve("events"))) {
            assertThat(files.map(f -> f.getFileName().toString()).sorted())
                    .containsExactly("0000000000000000009", "0000000000000000010");
        }
    }
}
