package org.flinkss.jobs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.runner.PrestartedCluster;
import org.flinkss.runtime.table.Warehouse;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code java -jar} run's embedded cluster, started before the query is built ({@link
 * QueryRunner#prestart}): the run takes it, keeps the folder it already uses while removing what a
 * killed run left beside it, and ends it; a cluster started for another query is closed, not used.
 * No {@code MiniClusterExtension} here: these runs start their own embedded clusters, as {@code
 * java -jar} does.
 */
class PrestartedRunITCase {

    @TempDir Path base;

    @Test
    void theRunTakesTheClusterStartedForItAndRemovesOnlyAKilledRunsLeftovers() throws Exception {
        RunOptions options = BronzeITCase.options(base, 2);
        EventFiles.writeBatch(options.events(), 1, EventGenerator.events(0, 500));
        Path killed = Files.createDirectories(base.resolve("_tmp/bronze/killed-run/rocksdb"));
        Files.writeString(killed.resolve("000001.sst"), "x".repeat(1000));

        try (PrestartedCluster cluster = QueryRunner.prestart("bronze", options)) {
            assertThat(cluster).as("an embedded run's cluster").isNotNull();
            QueryRunner.Result run =
                    QueryRunner.run(new BronzeQuery(options.events()), options, cluster);

            assertThat(cluster.isTaken()).as("the run took the prestarted cluster").isTrue();
            assertThat(run.runId).isEqualTo(cluster.runId());
            assertThat(run.numInputRows()).isEqualTo(500);
        }
        assertThat(new Warehouse(options.warehouse()).count(EventTables.BRONZE)).isEqualTo(500);
        assertThat(base.resolve("_tmp/bronze")).doesNotExist();
    }

    @Test
    void aClusterStartedForAnotherQueryIsClosedAndTheRunStartsItsOwn() throws Exception {
        RunOptions options = BronzeITCase.options(base, 2);
        EventFiles.writeBatch(options.events(), 1, EventGenerator.events(0, 300));

        try (PrestartedCluster other = QueryRunner.prestart("silver", options)) {
            QueryRunner.Result run =
                    QueryRunner.run(new BronzeQuery(options.events()), options, other);

            assertThat(run.runId).isNotEqualTo(other.runId());
            assertThat(run.numInputRows()).isEqualTo(300);
        }
        assertThat(new Warehouse(options.warehouse()).count(EventTables.BRONZE)).isEqualTo(300);
        assertThat(base.resolve("_tmp/bronze")).doesNotExist();
    }
}
