package org.flinkss.runtime.runner.impl;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;

import org.junit.jupiter.api.Test;

import org.flinkss.runtime.QueryException;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code -D key=value}: set last, except the keys that belong to the query's checkpoint. */
class FlinkOverridesTest {

    @Test
    void anOptionIsSetOverWhatTheFileAndTheRunSaid() {
        Configuration conf = new Configuration();
        conf.setString("parallelism.default", "2"); // as from config.yaml

        new FlinkOverrides(Map.of("parallelism.default", "4", "pipeline.name", "mine"))
                .applyTo(conf, true);

        assertThat(conf.toMap())
                .containsEntry("parallelism.default", "4")
                .containsEntry("pipeline.name", "mine");
    }

    @Test
    void theCheckpointsKeysAreRefusedNamingWhatToUseInstead() {
        assertThatThrownBy(
                        () ->
                                FlinkOverrides.check(
                                        Map.of("execution.checkpointing.dir", "file:///x")))
                .isInstanceOf(QueryException.class)
                .hasMessageContaining("-D execution.checkpointing.dir")
                .hasMessageContaining("--base");
        // Flink's older name of the same option, too.
        assertThatThrownBy(() -> FlinkOverrides.check(Map.of("state.checkpoints.dir", "x")))
                .hasMessageContaining("--base");
        assertThatThrownBy(
                        () ->
                                FlinkOverrides.check(
                                        Map.of("execution.checkpointing.interval", "1s")))
                .hasMessageContaining("--checkpoint-interval");
        assertThatThrownBy(() -> FlinkOverrides.check(Map.of("execution.state-recovery.path", "x")))
                .hasMessageContaining("reset");
    }

    @Test
    void aRestPortGivenAloneIsTheOneAnEmbeddedClusterBinds() {
        Configuration conf = new Configuration();
        conf.set(RestOptions.BIND_PORT, "0"); // an embedded run's default: any free port

        new FlinkOverrides(Map.of("rest.port", "8088")).applyTo(conf, true);

        assertThat(conf.get(RestOptions.BIND_PORT)).isEqualTo("8088");
    }
}
