package org.flinkss.runtime.runner.impl;

import org.apache.flink.configuration.Configuration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.QueryException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Where an embedded run's config.yaml is found, from any working directory. */
class FlinkConfFileTest {

    @TempDir Path dir;

    private Path conf(String folder, String marker) throws IOException {
        Path d = Files.createDirectories(dir.resolve(folder));
        Files.writeString(d.resolve("config.yaml"), "taskmanager.numberOfTaskSlots: " + marker);
        return d;
    }

    private static String slots(FlinkConfFile file, Path scratch) {
        return file.load(scratch).toMap().get("taskmanager.numberOfTaskSlots");
    }

    @Test
    void aGivenFolderComesFirstAndOneWithoutConfigYamlIsRefused() throws IOException {
        Path given = conf("given", "7");
        Path work = conf("work/flink-conf", "1").getParent();

        FlinkConfFile file = FlinkConfFile.locate(given, null, work, null);

        assertThat(slots(file, dir)).isEqualTo("7");
        assertThat(file.describe()).endsWith(given.resolve("config.yaml") + " (given)");
        assertThatThrownBy(() -> FlinkConfFile.locate(dir.resolve("empty"), null, work, null))
                .isInstanceOf(QueryException.class)
                .hasMessageContaining("has no config.yaml");
    }

    @Test
    void flinkConfDirComesBeforeTheWorkingDirectorysFlinkConf() throws IOException {
        Path env = conf("env", "3");
        Path work = conf("work/flink-conf", "1").getParent();

        FlinkConfFile file = FlinkConfFile.locate(null, env.toString(), work, null);

        assertThat(slots(file, dir)).isEqualTo("3");
        assertThat(file.describe())
                .isEqualTo(
                        "flink configuration: "
                                + env.resolve("config.yaml")
                                + " ($FLINK_CONF_DIR)");
    }

    @Test
    void aFlinkConfDirWithoutTheFileIsNamedInTheLineOfTheOneUsedInstead() throws IOException {
        Path work = conf("work/flink-conf", "1").getParent();

        FlinkConfFile file =
                FlinkConfFile.locate(null, dir.resolve("nothing").toString(), work, null);

        assertThat(slots(file, dir)).isEqualTo("1");
        assertThat(file.describe())
                .contains("work/flink-conf/config.yaml (./flink-conf; $FLINK_CONF_DIR=")
                .endsWith("nothing has no config.yaml)");
    }

    @Test
    void runFromAnotherDirectoryTheJarFindsTheFlinkConfOfTheRepositoryItIsIn() throws IOException {
        // The repository's layout: <repo>/flink-conf and <repo>/jobs/target/flinkss-jobs.jar.
        conf("repo/flink-conf", "5");
        Path jar = Files.createDirectories(dir.resolve("repo/jobs/target")).resolve("x.jar");
        Files.writeString(jar, "not really a jar");
        Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));

        FlinkConfFile file = FlinkConfFile.locate(null, null, elsewhere, jar);

        assertThat(slots(file, dir)).isEqualTo("5");
        assertThat(file.file()).contains(dir.resolve("repo/flink-conf/config.yaml"));
        assertThat(file.describe()).contains("(beside " + jar);
    }

    @Test
    void withNoFileAnywhereTheRepositorysCopyBuiltIntoTheJarIsRead() throws IOException {
        Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
        Path scratch = dir.resolve("run-tmp");

        FlinkConfFile file = FlinkConfFile.locate(null, null, elsewhere, null);
        Configuration conf = file.load(scratch);

        assertThat(file.file()).isEmpty();
        assertThat(file.describe())
                .startsWith(
                        "flink configuration: the copy of flink-conf/config.yaml built into the"
                                + " jar");
        // The deployment defaults the code no longer restates.
        assertThat(conf.toMap())
                .containsEntry("state.backend.type", "rocksdb")
                .containsEntry("execution.checkpointing.incremental", "true")
                .containsEntry(
                        "execution.checkpointing.externalized-checkpoint-retention",
                        "RETAIN_ON_CANCELLATION")
                .containsEntry("execution.checkpointing.num-retained", "2")
                .containsEntry("restart-strategy.type", "exponential-delay")
                .containsEntry("pipeline.object-reuse", "true")
                .containsEntry("state.backend.rocksdb.timer-service.factory", "HEAP")
                .containsEntry("state.backend.rocksdb.use-bloom-filter", "true")
                .containsEntry("security.delegation.tokens.enabled", "false");
    }

    @Test
    void theCopyBuiltIntoTheJarIsTheRepositorysFile() throws IOException {
        try (var in = FlinkConfFile.class.getResourceAsStream(FlinkConfFile.RESOURCE)) {
            assertThat(in).isNotNull();
            // The tests run in runtime/: the repository's file is one folder up.
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8))
                    .isEqualTo(Files.readString(Path.of("..", "flink-conf", "config.yaml")));
        }
    }
}
