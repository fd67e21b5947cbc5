package org.flinkss.runtime.runner.impl;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.configuration.TaskManagerOptions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.RestorePoints;
import org.flinkss.runtime.storage.Storage;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** A run's Flink configuration: the deployment's file, and on top only the run's own values. */
class JobConfigurationTest {

    @TempDir Path dir;

    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);

    private Path confDir(String yaml) throws IOException {
        Path d = Files.createDirectories(dir.resolve("conf-" + yaml.hashCode()));
        Files.writeString(d.resolve("config.yaml"), yaml);
        return d;
    }

    @Test
    void theDeploymentsSettingsComeFromTheFileAndTheRunAddsOnlyItsOwn() throws IOException {
        // A file that chooses other defaults than the project's: the code must not restate them.
        Path conf =
                confDir(
                        "state.backend.type: hashmap\n"
                                + "pipeline.object-reuse: false\n"
                                + "restart-strategy.type: none\n"
                                + "rest.port: 8081\n"
                                + "execution.checkpointing.dir: file:///elsewhere\n");
        CheckpointLayout layout =
                CheckpointLayout.of(Storage.location(dir.resolve("base").toFile()), "bronze");
        Path restore =
                Storage.localFile(layout.savepoints(), "a test file")
                        .toPath()
                        .resolve("savepoint-1");
        Path tmp = dir.resolve("base/_tmp/run-1");

        Configuration built =
                new JobConfiguration(
                                layout,
                                Duration.ofSeconds(3),
                                Map.of("parallelism.default", "4"),
                                conf.toFile(),
                                null,
                                out,
                                false)
                        .build(
                                Optional.of(RestorePoints.location(restore.toFile())),
                                tmp.toFile(),
                                null);

        assertThat(built.toMap())
                .containsEntry("state.backend.type", "hashmap")
                .containsEntry("pipeline.object-reuse", "false")
                .containsEntry("restart-strategy.type", "none")
                .containsEntry("parallelism.default", "4");
        assertThat(built.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY))
                .isEqualTo(layout.checkpoints().toUri().toString());
        assertThat(built.get(CheckpointingOptions.SAVEPOINT_DIRECTORY))
                .isEqualTo(layout.savepoints().toUri().toString());
        assertThat(built.get(CheckpointingOptions.CHECKPOINTING_INTERVAL))
                .isEqualTo(Duration.ofSeconds(3));
        assertThat(built.get(StateRecoveryOptions.SAVEPOINT_PATH))
                .isEqualTo(restore.toUri().toString());
        assertThat(built.get(CoreOptions.TMP_DIRS)).isEqualTo(tmp.toString());
        // An embedded cluster takes any free port, never the one of a cluster beside it.
        assertThat(built.get(RestOptions.BIND_PORT)).isEqualTo("0");
        assertThat(built.contains(RestOptions.PORT)).isFalse();
        assertThat(printed.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void underFlinkRunNoFileIsReadTheClientsConfigurationWins() throws IOException {
        Path conf = confDir("state.backend.type: hashmap\n");
        CheckpointLayout layout =
                CheckpointLayout.of(Storage.location(dir.resolve("base").toFile()), "bronze");

        Configuration built =
                new JobConfiguration(
                                layout,
                                Duration.ofMinutes(1),
                                Map.of(),
                                conf.toFile(),
                                new Configuration(),
                                out,
                                true)
                        .build(Optional.empty(), dir.resolve("tmp").toFile(), null);

        assertThat(built.toMap()).doesNotContainKey("state.backend.type");
        assertThat(built.contains(RestOptions.BIND_PORT)).isFalse();
        assertThat(built.contains(StateRecoveryOptions.SAVEPOINT_PATH)).isFalse();
        assertThat(built.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY))
                .isEqualTo(layout.checkpoints().toUri().toString());
    }

    @Test
    void anEmbeddedClusterGetsTheSlotsItsParallelismNeeds() throws IOException {
        // Issue 13 point 7: flink-conf gives 2 slots; a run at parallelism 4 would wait for two
        // more that never come.
        Path conf = confDir("taskmanager.numberOfTaskSlots: 2\n");
        CheckpointLayout layout =
                CheckpointLayout.of(Storage.location(dir.resolve("base").toFile()), "win5");
        JobConfiguration configuration =
                new JobConfiguration(
                        layout, Duration.ofMinutes(1), Map.of(), conf.toFile(), null, out, false);

        assertThat(
                        configuration
                                .build(Optional.empty(), dir.resolve("tmp").toFile(), 4)
                                .get(TaskManagerOptions.NUM_TASK_SLOTS))
                .isEqualTo(4);
        assertThat(
                        configuration
                                .build(Optional.empty(), dir.resolve("tmp").toFile(), 1)
                                .get(TaskManagerOptions.NUM_TASK_SLOTS))
                .as("never fewer than the file gives")
                .isEqualTo(2);
    }

    @Test
    void theFileReadIsNamedInOneLineOncePerProcess() throws IOException {
        Path conf = confDir("taskmanager.numberOfTaskSlots: 2\n# once\n");
        CheckpointLayout layout =
                CheckpointLayout.of(Storage.location(dir.resolve("base").toFile()), "bronze");
        JobConfiguration configuration =
                new JobConfiguration(
                        layout, Duration.ofMinutes(1), Map.of(), conf.toFile(), null, out, true);

        configuration.build(Optional.empty(), dir.resolve("tmp1").toFile(), null);
        configuration.build(Optional.empty(), dir.resolve("tmp2").toFile(), null);

        assertThat(printed.toString(StandardCharsets.UTF_8))
                .isEqualTo(
                        "flink configuration: "
                                + conf.toAbsolutePath().normalize().resolve("config.yaml")
                                + " (given)"
                                + System.lineSeparator());
    }
}
