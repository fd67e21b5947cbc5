package org.flinkss.jobs.kafka;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.LocalEventFiles;
import org.flinkss.jobs.CliOutput;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 36: {@code --trigger real-time} runs queries from Kafka topics or the landing folder to
 * Kafka topics or Delta tables; any other is refused before any data moves, in one line naming the
 * query, the source or table, and what real-time runs (docs/real-time.md).
 */
class RealTimeRefusalITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    private static final String SUPPORTED =
            ": --trigger real-time runs queries that read Kafka topics or the landing folder and"
                    + " write Kafka topics or Delta tables (docs/real-time.md); run it with"
                    + " --trigger"
                    + " available-now or processing-time=<interval>";

    @TempDir Path base;

    @Test
    void aQueryOverADeltaTableIsRefusedNamingItAndWhatRealTimeRuns() {
        LocalEventFiles.writeBatch(base.resolve("events"), 1, EventGenerator.events(0, 500));
        Warehouse warehouse = new Warehouse(Storage.location(base.resolve("warehouse").toFile()));

        // Step 1: bronze, from the landing folder to Delta tables, runs in real-time mode
        // (RealTimeBronzeITCase); here available-now, to make the table win5 reads.
        CliOutput.succeeded("run", "bronze", "--base", base.toString(), "--quiet");

        // Step 2: win5 reads the Delta table events_bronze: refused, naming the source; nothing
        // is written.
        CliOutput win5 =
                CliOutput.failed(
                        "run", "win5", "--base", base.toString(), "--trigger", "real-time");
        assertThat(win5.errLines()).hasSize(1);
        assertThat(win5.errLines().get(0))
                .startsWith("error: query 'win5' reads ")
                .contains("events_bronze")
                .endsWith(SUPPORTED);
        assertThat(warehouse.exists("events_5min")).isFalse();
    }
}
