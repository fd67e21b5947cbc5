package org.flinkss.jobs.queries;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.queries.Api;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.course.queries.QueryCatalog;
import org.flinkss.runtime.ops.QueryReset;
import org.flinkss.runtime.query.OutputMode;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The command block of docs/command-line.md: win5 in append mode, reset, win5 in update mode,
 * reset. The second reset said "tables emptied: events_5min" but left the update-mode rows in the
 * SQL database's events_5min (the warehouse table of the same name, from the append run, was
 * emptied instead), so the report still drew them.
 */
class ResetUpdateModeITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path base;

    private RunOptions.Builder options(OutputMode mode) {
        return RunOptions.builder()
                .base(Storage.location(base.toFile()))
                .parallelism(2)
                .printProgress(false)
                .outputMode(mode);
    }

    @Test
    void resetEmptiesTheSqlTableOfAnUpdateModeRunBesideTheWarehouseTable() throws Exception {
        RunOptions append = options(OutputMode.APPEND).build();
        // The SQL path: the base's default SQLite file as --jdbc-url (without, update MERGEs into
        // the Delta table).
        RunOptions update =
                options(OutputMode.UPDATE).jdbcUrl(append.database().describe()).build();
        EventFiles.writeBatch(append.events(), 1, EventGenerator.events(0, 500));
        QueryRunner.run(new BronzeQuery(append.events()), append);
        QueryRunner.run(QueryCatalog.WIN5.create(append, Api.DATASTREAM), append);
        Warehouse warehouse = new Warehouse(append.warehouse());
        assertThat(warehouse.count("events_5min")).isPositive();

        QueryReset.reset(
                Storage.location(base.toFile()),
                warehouse,
                append.database(),
                QueryCatalog.WIN5.queryName());
        QueryRunner.run(QueryCatalog.WIN5.create(update, Api.DATASTREAM), update);
        assertThat(update.database().rows("events_5min")).isNotEmpty();

        assertThat(
                        QueryReset.reset(
                                Storage.location(base.toFile()),
                                warehouse,
                                update.database(),
                                QueryCatalog.WIN5.queryName()))
                .containsOnlyOnce("events_5min");
        assertThat(update.database().rows("events_5min")).isEmpty();
        assertThat(warehouse.count("events_5min")).isZero();
    }
}
