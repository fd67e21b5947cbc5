package org.flinkss.runtime.runner;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.trigger.Trigger;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class RunSettingsTest {

    @TempDir Path tmp;

    @Test
    void anAvailableNowRunCheckpointsRarelySinceItsBatchesEndWithACheckpointOfTheirOwn() {
        assertThat(settings(Trigger.availableNow(), null).checkpointInterval())
                .isEqualTo(RunSettings.AVAILABLE_NOW_CHECKPOINT_INTERVAL)
                .isEqualTo(Duration.ofSeconds(30));
        assertThat(settings(Trigger.parse("once"), null).checkpointInterval())
                .isEqualTo(RunSettings.AVAILABLE_NOW_CHECKPOINT_INTERVAL);
    }

    @Test
    void otherTriggersCheckpointAtTheirIntervalAndAGivenIntervalWins() {
        // A processing-time batch ends at the first periodic checkpoint after its input is read.
        assertThat(
                        settings(Trigger.processingTime(Duration.ofSeconds(10)), null)
                                .checkpointInterval())
                .isEqualTo(Duration.ofSeconds(10));
        assertThat(settings(Trigger.continuous(), null).checkpointInterval())
                .isEqualTo(Duration.ofSeconds(1));
        assertThat(settings(Trigger.availableNow(), Duration.ofSeconds(1)).checkpointInterval())
                .isEqualTo(Duration.ofSeconds(1));
        assertThat(
                        settings(
                                        Trigger.processingTime(Duration.ofSeconds(10)),
                                        Duration.ofSeconds(2))
                                .checkpointInterval())
                .isEqualTo(Duration.ofSeconds(2));
    }

    private RunSettings settings(Trigger trigger, Duration interval) {
        return RunSettings.builder()
                .tmpRoot(tmp)
                .trigger(trigger)
                .checkpointInterval(interval)
                .build();
    }
}
