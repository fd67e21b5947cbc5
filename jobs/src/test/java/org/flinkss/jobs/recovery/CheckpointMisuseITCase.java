package org.flinkss.jobs.recovery;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.EventSources;
import org.flinkss.course.queries.BronzeITCase;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.course.queries.QueryCatalog;
import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.ops.QueryCheckpoint;
import org.flinkss.runtime.ops.QueryReset;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CheckpointMisuseITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path base;

    /** Another query that claims bronze's checkpoint: same name, another sink. */
    private static Query impostor(Path events) {
        return new Query() {
            @Override
            public String name() {
                return BronzeQuery.NAME;
            }

            @Override
            public void build(QueryContext context) {
                context.toTable(
                        BronzeQuery.splitBad(
                                EventSources.jsonFiles(
                                        context,
                                        "events",
                                        Storage.location(events.toFile()),
                                        null,
                                        false)),
                        EventTables.events("other_table"));
            }
        };
    }

    @Test
    void aDifferentQueryOnAnExistingCheckpointIsRefusedBeforeAnyDataMoves() {
        RunOptions options = BronzeITCase.options(base, 2);
        EventFiles.writeBatch(options.events(), 1, EventGenerator.events(0, 500));
        QueryRunner.run(new BronzeQuery(options.events()), options);
        EventFiles.writeBatch(options.events(), 2, EventGenerator.events(500, 500));

        assertThatThrownBy(
                        () ->
                                QueryRunner.run(
                                        impostor(
                                                Storage.localFile(options.events(), "a test file")
                                                        .toPath()),
                                        options))
                .isInstanceOf(QueryException.class)
                .hasMessageContaining("belongs to query 'bronze' (sources")
                .hasMessageContaining("events_bronze")
                .hasMessageContaining("other_table")
                .hasMessageContaining("new checkpoint");

        Warehouse warehouse = new Warehouse(options.warehouse());
        assertThat(warehouse.exists("other_table")).isFalse();
        assertThat(
                        Files.exists(
                                Storage.localFile(
                                                warehouse.tableLocation("other_table"),
                                                "a test file")
                                        .toPath()))
                .isFalse();
        // The rightful query still continues where it stopped.
        QueryRunner.Result next = QueryRunner.run(new BronzeQuery(options.events()), options);
        assertThat(next.lastProgress.path("batchId").asLong()).isEqualTo(1);
        assertThat(warehouse.count(BronzeQuery.TABLE)).isEqualTo(1000);
    }

    @Test
    void resetStartsTheQueryOverWithoutDuplicatingARow() throws Exception {
        RunOptions options = BronzeITCase.options(base, 2);
        EventFiles.writeBatch(options.events(), 1, EventGenerator.events(0, 500));
        EventFiles.writeBatch(options.events(), 2, EventGenerator.events(500, 500));
        QueryRunner.run(new BronzeQuery(options.events()), options);
        Warehouse warehouse = new Warehouse(options.warehouse());

        // The impostor could not run on bronze's checkpoint; after a reset, bronze reprocesses all.
        List<String> emptied =
                QueryReset.reset(
                        options.base(),
                        warehouse,
                        options.database(),
                        QueryCatalog.BRONZE.queryName());
        assertThat(emptied).contains(BronzeQuery.TABLE);
        // An empty table, not no table (issue 14 point 15): one commit removed every file.
        assertThat(warehouse.exists(BronzeQuery.TABLE)).isTrue();
        assertThat(warehouse.count(BronzeQuery.TABLE)).isZero();
        QueryRunner.Result again = QueryRunner.run(new BronzeQuery(options.events()), options);
        assertThat(again.numInputRows()).isEqualTo(1000);
        assertThat(again.lastProgress.path("batchId").asLong()).isZero();
        assertThat(warehouse.sortedValues(BronzeQuery.TABLE))
                .extracting(r -> r.get(0))
                .containsExactlyElementsOf(LongStream.range(0, 1000).boxed().toList());
    }

    @Test
    void aSecondRunOfTheSameQueryAtOnceIsRefused() {
        RunOptions options = BronzeITCase.options(base, 2);
        EventFiles.writeBatch(options.events(), 1, EventGenerator.events(0, 500));
        // Another process holds the checkpoint: its lock is an OS file lock on <cp>/.lock.
        try (QueryCheckpoint.Lock running =
                QueryCheckpoint.of(Storage.location(base.toFile()), BronzeQuery.NAME).lock()) {
            assertThatThrownBy(() -> QueryRunner.run(new BronzeQuery(options.events()), options))
                    .isInstanceOf(QueryException.class)
                    .hasMessageContaining("query 'bronze' is already running")
                    .hasMessageContaining("pid " + ProcessHandle.current().pid());
        }
        assertThat(new Warehouse(options.warehouse()).exists(BronzeQuery.TABLE)).isFalse();
        // Once the other run is over, the query runs.
        QueryRunner.run(new BronzeQuery(options.events()), options);
        assertThat(new Warehouse(options.warehouse()).count(BronzeQuery.TABLE)).isEqualTo(500);
    }
}
