package org.flinkss.course.queries;

import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.sink.CollectSink;
import org.flinkss.runtime.table.TableMode;
import org.flinkss.runtime.table.TableOwner;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TableStreamITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path base;

    /** spark.readStream.table("events_bronze") into the memory sink. */
    private static Query readBronze(String sinkName) {
        return new Query() {
            @Override
            public String name() {
                return "read_bronze";
            }

            @Override
            public void build(QueryContext context) {
                context.toSink(
                        context.tableStream(BronzeQuery.TABLE, "event_ts", null)
                                .map(EventTables::fromRow)
                                .returns(Event.class),
                        "memory",
                        "MemorySink",
                        new CollectSink<>(sinkName));
            }
        };
    }

    @Test
    void aTableIsAStreamSourceThatReadsOnlyNewlyCommittedFiles() {
        RunOptions options = BronzeITCase.options(base, 2);
        String sink = "bronze-stream-" + System.nanoTime();

        // Step 1: bronze commits batch 1; the next layer reads its 500 rows.
        EventFiles.writeBatch(options.events(), 1, EventGenerator.events(0, 500));
        QueryRunner.run(new BronzeQuery(options.events()), options);
        QueryRunner.Result first = QueryRunner.run(readBronze(sink), options);
        assertThat(first.numInputRows()).isEqualTo(500);

        // Step 2: bronze commits batch 2; the next layer reads only those 500.
        EventFiles.writeBatch(options.events(), 2, EventGenerator.events(500, 500));
        QueryRunner.run(new BronzeQuery(options.events()), options);
        QueryRunner.Result second = QueryRunner.run(readBronze(sink), options);
        assertThat(second.numInputRows()).isEqualTo(500);
        assertThat(QueryRunner.run(readBronze(sink), options).batches()).isZero();

        List<Event> read = CollectSink.collected(sink);
        assertThat(read)
                .extracting(e -> e.eventId)
                .containsExactlyInAnyOrderElementsOf(LongStream.range(0, 1000).boxed().toList());
        assertThat(read).containsExactlyInAnyOrderElementsOf(EventGenerator.events(0, 1000));
        assertThat(second.lastProgress.path("sink").path("numOutputRows").asLong()).isEqualTo(500);
    }

    @Test
    void aTableReplacedWholeAtEveryBatchIsRefusedAsAStreamSourceNamingItsWriter() {
        RunOptions options = BronzeITCase.options(base, 2);
        // Step 1: the table is written in complete mode (TableMode.REPLACED), as win5 writes
        // events_5min with --output-mode complete: each batch's commit replaces every file.
        Warehouse warehouse = new Warehouse(options.warehouse());
        RowType columns = RowType.of(new LogicalType[] {new BigIntType()}, new String[] {"id"});
        warehouse.own(BronzeQuery.TABLE, columns, TableOwner.command("win5"), TableMode.REPLACED);

        // Step 2: a stream of it has no new rows to read, and is refused before any job runs.
        assertThatThrownBy(() -> QueryRunner.run(readBronze("replaced"), options))
                .isInstanceOf(QueryException.class)
                .hasMessageContaining("is replaced whole at every batch")
                .hasMessageContaining("query 'win5'")
                .hasMessageContaining("'table show " + BronzeQuery.TABLE + "'");
        assertThat(warehouse.snapshot(BronzeQuery.TABLE).version()).isZero(); // nothing written
    }
}
