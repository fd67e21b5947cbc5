package org.flinkss.course.queries;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.sink.CollectSink;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

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
}
