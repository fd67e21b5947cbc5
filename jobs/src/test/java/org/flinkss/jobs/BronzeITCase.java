package org.flinkss.jobs;

import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.flinkss.event.EventFiles;
import org.flinkss.event.EventGenerator;
import org.flinkss.query.QueryRunner;
import org.flinkss.query.RunOptions;
import org.flinkss.table.Warehouse;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class BronzeITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    @TempDir
    Path base;

    private RunOptions options() {
        return RunOptions.builder().base(base).parallelism(2).printProgress(false).build();
    }

    @Test
    void courseScenarioCountsFiveHundredThenAThousandAndNothingIsReprocessed() {
        RunOptions options = options();
        Warehouse warehouse = new Warehouse(options.warehouse());
        BronzeQuery bronze = new BronzeQuery(options.events());

        // Step 1: land batch 1, run bronze: 500 rows, one batch of 500.
        EventFiles.writeBatch(options.events(), 1, EventGenerator.events(0, 500));
        QueryRunner.Result first = QueryRunner.run(bronze, options);
        assertThat(warehouse.count(BronzeQuery.TABLE)).isEqualTo(500);
        assertThat(first.lastProgress.path("batchId").asLong()).isEqualTo(0);
        assertThat(first.lastProgress.path("numInputRows").asLong()).isEqualTo(500);
        assertThat(first.lastProgress.path("sink").path("numOutputRows").asLong()).isEqualTo(500);

        // Step 2: land batch 2, run again: only the 500 new rows are read.
        EventFiles.writeBatch(options.events(), 2, EventGenerator.events(500, 500));
        QueryRunner.Result second = QueryRunner.run(bronze, options);
        assertThat(warehouse.count(BronzeQuery.TABLE)).isEqualTo(1000);
        assertThat(second.lastProgress.path("batchId").asLong()).isEqualTo(1);
        assertThat(second.lastProgress.path("numInputRows").asLong()).isEqualTo(500);

        // Step 3: nothing new: 0 rows read, no new batch, the table unchanged.
        QueryRunner.Result third = QueryRunner.run(bronze, options);
        assertThat(third.batches()).isZero();
        assertThat(third.lastProgress.path("numInputRows").asLong()).isZero();
        assertThat(third.lastProgress.path("batchId").asLong()).isEqualTo(2);
        assertThat(warehouse.count(BronzeQuery.TABLE)).isEqualTo(1000);
        assertThat(warehouse.sortedValues(BronzeQuery.TABLE)).hasSize(1000);
    }
}
