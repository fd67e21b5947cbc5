package org.flinkss.jobs.recovery;

import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.progress.ProgressTracker;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.table.Warehouse;

import java.io.IOException;
import java.util.List;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/** The course's events landed for the recovery tests, and bronze checked against them. */
final class BronzeInput {

    private BronzeInput() {}

    /** Lands {@code files} batches of {@code perFile} events, ids 0 up, one file each. */
    static void land(RunOptions options, int files, int perFile) throws IOException {
        for (int file = 0; file < files; file++) {
            EventFiles.writeBatch(
                    options.events(),
                    file + 1,
                    EventGenerator.events((long) file * perFile, perFile));
        }
    }

    /**
     * Runs bronze to its end in this JVM, then checks that its table holds every one of the {@code
     * events} landed exactly once and that no batch id repeats in its progress log.
     */
    static void assertExactlyOnceAfterARerun(
            RunOptions options, CheckpointLayout checkpoint, long events) throws Exception {
        QueryRunner.run(new BronzeQuery(options.events()), options);
        List<Long> ids =
                new Warehouse(options.warehouse())
                        .sortedValues(BronzeQuery.TABLE).stream()
                                .map(row -> (Long) row.get(0))
                                .toList();
        assertThat(ids)
                .as("every event exactly once")
                .containsExactlyElementsOf(LongStream.range(0, events).boxed().toList());
        List<Long> batches =
                ProgressTracker.history(checkpoint).stream()
                        .map(p -> p.path("batchId").asLong())
                        .toList();
        assertThat(batches).as("batch ids").doesNotHaveDuplicates().isSorted();
    }
}
