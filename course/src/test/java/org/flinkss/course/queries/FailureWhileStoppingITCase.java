package org.flinkss.course.queries;

import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.EventSources;
import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.progress.ProgressTracker;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An availableNow run whose task fails while the job is stopped with a savepoint at its end: Flink
 * has taken the savepoint, the task fails as it closes, and Flink fails the job (its {@code
 * StopWithSavepointStoppingException} is not recoverable), before the batch is committed. The run
 * goes on from that savepoint, which holds the batch's committables, and the table holds every row
 * once, in one batch.
 */
class FailureWhileStoppingITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    private static final int ROWS = 400;

    @TempDir Path dir;

    /**
     * Fails once as the job is stopped: a task of a job stopped with a savepoint closes its
     * operators once the savepoint is taken. Shared with the tasks, which run in this JVM.
     */
    static final class FailOnceAtTheStop extends RichMapFunction<Event, Event> {
        private static final long serialVersionUID = 1L;
        static final AtomicInteger FAILURES = new AtomicInteger();

        @Override
        public Event map(Event e) {
            return e;
        }

        @Override
        public void close() {
            if (FAILURES.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new IllegalStateException("boom: injected failure while stopping");
            }
        }
    }

    private static Query bronze(Path events) {
        return new Query() {
            @Override
            public String name() {
                return "bronze-stop-failure";
            }

            @Override
            public void build(QueryContext context) {
                context.toTable(
                        BronzeQuery.splitBad(
                                        EventSources.jsonFiles(
                                                context,
                                                "events",
                                                Storage.location(events.toFile()),
                                                QueryCatalog.WATERMARK_DELAY,
                                                false))
                                .map(new FailOnceAtTheStop())
                                .returns(Event.class)
                                .name("may-fail")
                                .uid("may-fail"),
                        EventTables.events("events_bronze"));
            }
        };
    }

    @Test
    void aTaskFailingAfterTheStopsSavepointLosesNothingAndDoublesNothing() {
        Path events = dir.resolve("events");
        EventFiles.writeBatch(
                Storage.location(events.toFile()), 1, EventGenerator.events(0, ROWS / 2));
        EventFiles.writeBatch(
                Storage.location(events.toFile()), 2, EventGenerator.events(ROWS / 2, ROWS / 2));
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        RunOptions options =
                RunOptions.builder()
                        .base(Storage.location(dir.resolve("base").toFile()))
                        .parallelism(2)
                        .printProgress(false)
                        // No checkpoint before the stop: the savepoint is the only one.
                        .checkpointInterval(Duration.ofMinutes(10))
                        .out(new PrintStream(output, true, StandardCharsets.UTF_8))
                        .build();

        FailOnceAtTheStop.FAILURES.set(1);
        QueryRunner.run(bronze(events), options);

        String said = output.toString(StandardCharsets.UTF_8);
        assertThat(FailOnceAtTheStop.FAILURES.get()).as("the failure was thrown").isZero();
        assertThat(said)
                .as(said)
                .contains("took its savepoint but failed to commit its last batch")
                .contains("Running 'bronze-stop-failure' again to commit it.");
        Warehouse warehouse = new Warehouse(options.warehouse());
        assertThat(warehouse.count("events_bronze")).isEqualTo(ROWS);
        assertThat(warehouse.sortedValues("events_bronze")).doesNotHaveDuplicates();
        assertThat(ProgressTracker.history(options.checkpointOf("bronze-stop-failure")))
                .extracting(p -> p.path("batchId").asLong())
                .containsExactly(0L);
    }
}
