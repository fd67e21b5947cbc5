package org.flinkss.course.queries;

import org.apache.flink.test.junit5.MiniClusterExtension;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/** Topic 11.08: dropDuplicatesWithinWatermark, its bounded state and its trade-off. */
class DedupITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path base;

    private static QueryRunner.Result run(DedupQuery query, RunOptions options) {
        QueryRunner.run(new BronzeQuery(options.events()), options);
        return QueryRunner.run(query, options);
    }

    private static ObjectNode dedupe(QueryRunner.Result result) {
        return (ObjectNode) result.lastProgress.path("stateOperators").path(0);
    }

    /** Runs the course's scenario and returns [events_dedup, events_dedup_late] sorted. */
    private List<List<List<Object>>> scenario(Api api) {
        RunOptions options = BronzeITCase.options(base.resolve(api.text()), 2);
        Warehouse warehouse = new Warehouse(options.warehouse());
        DedupQuery dedup = DedupQuery.dedup(api);

        // Step 1: batches 1, 2 and 4 (ids 0..1499): every id once.
        EventFiles.writeBatch(options.events(), 1, EventGenerator.events(0, 500));
        EventFiles.writeBatch(options.events(), 2, EventGenerator.events(500, 500));
        EventFiles.writeBatch(options.events(), 4, EventGenerator.events(1000, 500));
        QueryRunner.Result first = run(dedup, options);
        assertThat(first.numInputRows()).isEqualTo(1500);
        assertThat(warehouse.count("events_dedup")).isEqualTo(1500);

        // Step 2: batch 5 re-sends ids 1400..1499 unchanged. The watermark is event_ts(1499) - 10
        // min
        // = event_ts(1439): ids 1400..1439 are late (dropped, counted), 1440..1499 are remembered.
        EventFiles.writeBatch(options.events(), 5, EventGenerator.events(1400, 100));
        QueryRunner.Result second = run(dedup, options);
        assertThat(dedupe(second).path("numRowsDroppedByWatermark").asLong()).isEqualTo(40);
        assertThat(warehouse.sortedValues("events_dedup"))
                .extracting(r -> r.get(0))
                .containsExactlyElementsOf(LongStream.range(0, 1500).boxed().toList());
        assertThat(warehouse.sortedValues("events_dedup_late"))
                .extracting(r -> r.get(0))
                .containsExactlyElementsOf(LongStream.range(1400, 1440).boxed().toList());

        // Step 3: the trade-off: id 5 again, with a new event time, long after its key expired,
        // passes.
        Event again = EventGenerator.event(5);
        again.eventTs = Instant.ofEpochSecond(1740787200L + 1499 * 10 + 60);
        EventFiles.writeBatch(options.events(), 6, List.of(again));
        run(dedup, options);
        assertThat(warehouse.sortedValues("events_dedup"))
                .filteredOn(r -> r.get(0).equals(5L))
                .hasSize(2);
        return List.of(
                warehouse.sortedValues("events_dedup"),
                warehouse.sortedValues("events_dedup_late"));
    }

    @Test
    void duplicatesWithinTheWatermarkAreDroppedAndTheDataStreamAndTableApisAgree() {
        List<List<List<Object>>> dataStream = scenario(Api.DATASTREAM);
        List<List<List<Object>>> table = scenario(Api.TABLE);
        assertThat(table.get(0)).containsExactlyElementsOf(dataStream.get(0));
        assertThat(table.get(1))
                .extracting(r -> r.subList(0, 7))
                .containsExactlyElementsOf(
                        dataStream.get(1).stream().map(r -> r.subList(0, 7)).toList());
    }

    @Test
    void stateStaysBoundedOverManyBatches() {
        RunOptions options = BronzeITCase.options(base, 2);
        List<Long> held = new ArrayList<>();
        for (int batch = 1; batch <= 8; batch++) {
            EventFiles.writeBatch(
                    options.events(), batch, EventGenerator.events((batch - 1) * 500L, 500));
            held.add(
                    dedupe(run(DedupQuery.dedup(Api.DATASTREAM), options))
                            .path("numRowsTotal")
                            .asLong());
        }
        // Keys live for 20 minutes of event time past the watermark's lag: about 120 of 500 per
        // batch.
        assertThat(held).allSatisfy(h -> assertThat(h).isBetween(60L, 130L));
        assertThat(new Warehouse(options.warehouse()).count("events_dedup")).isEqualTo(4000);
    }
}
