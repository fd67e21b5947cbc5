package org.flinkss.course.queries;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.progress.ProgressTracker;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.trigger.Trigger;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

class TriggerITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path base;

    @Test
    void processingTimeRunsPickUpWhatArrivesAndTheCheckpointCarriesOverToAvailableNow()
            throws Exception {
        RunOptions continuous =
                RunOptions.builder()
                        .base(Storage.location(base.toFile()))
                        .parallelism(2)
                        .printProgress(false)
                        .trigger(Trigger.processingTime(Duration.ofMillis(500)))
                        .runFor(Duration.ofSeconds(8))
                        .build();
        EventFiles.writeBatch(continuous.events(), 1, EventGenerator.events(0, 500));

        // Step 1: a processing-time run; batch 2 lands while it runs and is read by a later batch.
        CompletableFuture<QueryRunner.Result> running =
                CompletableFuture.supplyAsync(
                        () -> QueryRunner.run(new BronzeQuery(continuous.events()), continuous));
        CheckpointLayout checkpoint = continuous.checkpointOf(BronzeQuery.NAME);
        long deadline = System.nanoTime() + Duration.ofSeconds(6).toNanos();
        while (ProgressTracker.history(checkpoint).isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        EventFiles.writeBatch(continuous.events(), 2, EventGenerator.events(500, 500));
        QueryRunner.Result result = running.get();

        assertThat(result.progress)
                .extracting(p -> p.path("numInputRows").asLong())
                .containsExactly(500L, 500L);
        assertThat(new Warehouse(continuous.warehouse()).count(BronzeQuery.TABLE)).isEqualTo(1000);

        // Step 2: the same checkpoint with another trigger (Spark allows it): batch 3 only.
        EventFiles.writeBatch(continuous.events(), 3, EventGenerator.events(1000, 500));
        RunOptions availableNow = BronzeITCase.options(base, 2);
        QueryRunner.Result next =
                QueryRunner.run(new BronzeQuery(availableNow.events()), availableNow);
        assertThat(next.progress).extracting(p -> p.path("batchId").asLong()).containsExactly(2L);
        assertThat(new Warehouse(availableNow.warehouse()).count(BronzeQuery.TABLE))
                .isEqualTo(1500);
    }

    /**
     * An availableNow run reads a backlog in back-to-back batches, as Spark does: each batch asks
     * for the checkpoint that lets the next one start instead of waiting for the periodic one. With
     * a periodic checkpoint once an hour, ten batches of one file would otherwise take ten hours;
     * here they end within the test's two minutes.
     */
    @Test
    void anAvailableNowRunsBatchesFollowEachOtherWithoutWaitingForThePeriodicCheckpoint()
            throws Exception {
        RunOptions options =
                RunOptions.builder()
                        .base(Storage.location(base.toFile()))
                        .parallelism(2)
                        .printProgress(false)
                        .maxFilesPerTrigger(1)
                        .checkpointInterval(Duration.ofHours(1))
                        .build();
        for (int file = 0; file < 10; file++) {
            EventFiles.writeBatch(
                    options.events(), file + 1, EventGenerator.events(file * 100L, 100));
        }

        QueryRunner.Result result =
                assertTimeoutPreemptively(
                        Duration.ofMinutes(2),
                        () -> QueryRunner.run(new BronzeQuery(options.events()), options));

        assertThat(result.progress)
                .extracting(p -> p.path("numInputRows").asLong())
                .containsExactly(100L, 100L, 100L, 100L, 100L, 100L, 100L, 100L, 100L, 100L);
        assertThat(new Warehouse(options.warehouse()).count(BronzeQuery.TABLE)).isEqualTo(1000);
    }
}
