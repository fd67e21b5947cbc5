package org.flinkss.jobs.queries;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.queries.Api;
import org.flinkss.course.queries.BronzeITCase;
import org.flinkss.course.queries.Pipeline;
import org.flinkss.course.testing.Expected;
import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.ops.QueryCheckpoint;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.flinkss.course.testing.Expected.MINUTE;

/** Topic 11.15: bronze, silver and gold as three availableNow queries, run by run. */
class PipelineITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path base;

    private List<List<List<Object>>> courseScenario(Api api) {
        RunOptions options = BronzeITCase.options(base.resolve(api.text()), 2);
        Warehouse warehouse = new Warehouse(options.warehouse());

        // Step 1: batches 1 and 2, then the pipeline.
        EventFiles.writeBatch(options.events(), 1, EventGenerator.events(0, 500));
        EventFiles.writeBatch(options.events(), 2, EventGenerator.events(500, 500));
        List<QueryRunner.Result> first = Pipeline.run(options, api);
        assertThat(first)
                .extracting(QueryRunner.Result::numInputRows)
                .containsExactly(1000L, 1000L, 1000L);
        List<Event> firstEvents = EventGenerator.events(0, 1000);
        assertThat(warehouse.sortedValues("events_by_type"))
                .containsExactlyElementsOf(
                        Expected.windows(
                                firstEvents,
                                30 * MINUTE,
                                30 * MINUTE,
                                false,
                                Expected.maxEventTime(firstEvents) - 10 * MINUTE));

        // Step 2: the late event (batch 3) and batch 4, then the pipeline again.
        EventFiles.writeBatch(options.events(), 3, List.of(WindowITCase.LATE));
        EventFiles.writeBatch(options.events(), 4, EventGenerator.events(1000, 500));
        List<QueryRunner.Result> second = Pipeline.run(options, api);

        // Step 3: bronze keeps the late event; silver drops it (counted), gold closes what batch 4
        // closed.
        assertThat(warehouse.count("events_bronze")).isEqualTo(1501);
        assertThat(warehouse.sortedValues("events_silver"))
                .extracting(r -> r.get(0))
                .containsExactlyElementsOf(LongStream.range(0, 1500).boxed().toList());
        assertThat(
                        second.get(1)
                                .lastProgress
                                .path("stateOperators")
                                .path(0)
                                .path("numRowsDroppedByWatermark")
                                .asLong())
                .isEqualTo(1);
        assertThat(warehouse.sortedValues("events_silver_late"))
                .extracting(r -> r.get(0))
                .containsExactly(99999L);
        List<Event> all = EventGenerator.events(0, 1500);
        assertThat(warehouse.sortedValues("events_by_type"))
                .containsExactlyElementsOf(
                        Expected.windows(
                                all,
                                30 * MINUTE,
                                30 * MINUTE,
                                false,
                                Expected.maxEventTime(all) - 10 * MINUTE));

        // Step 4: nothing new: no layer commits a batch.
        assertThat(Pipeline.run(options, api)).allSatisfy(r -> assertThat(r.batches()).isZero());
        List<List<List<Object>>> tables = new ArrayList<>();
        for (String table : List.of("events_silver", "events_by_type")) {
            tables.add(warehouse.sortedValues(table));
        }
        return tables;
    }

    @Test
    void courseScenarioGivesSparksSilverAndGoldInBothApis() {
        List<List<List<Object>>> dataStream = courseScenario(Api.DATASTREAM);
        List<List<List<Object>>> table = courseScenario(Api.TABLE);
        assertThat(table).isEqualTo(dataStream);
    }

    @Test
    void aSecondPipelineRunWhileOneIsActiveIsRefused() {
        RunOptions options = BronzeITCase.options(base, 2);
        try (QueryCheckpoint.Lock running =
                QueryCheckpoint.of(Storage.location(base.toFile()), "_pipeline").lock()) {
            assertThatThrownBy(() -> Pipeline.run(options, Api.DATASTREAM))
                    .isInstanceOf(QueryException.class)
                    .hasMessageContaining("query 'pipeline' is already running");
        }
    }
}
