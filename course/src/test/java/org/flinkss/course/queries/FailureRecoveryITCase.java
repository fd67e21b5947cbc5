package org.flinkss.course.queries;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.EventSources;
import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.sink.BatchFunction;
import org.flinkss.runtime.sink.ForEachBatchSink;
import org.flinkss.runtime.sink.jdbc.Database;
import org.flinkss.runtime.sink.jdbc.JdbcUpsert;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Topic 11.14, in-process: failures thrown inside an operator and inside a sink's commit. */
class FailureRecoveryITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    /** Shared with the tasks, which run in this JVM: how many failures are still to throw. */
    static final AtomicInteger OPERATOR_FAILURES = new AtomicInteger();

    static final AtomicInteger COMMIT_FAILURES = new AtomicInteger();
    static final AtomicInteger SEEN = new AtomicInteger();

    @TempDir Path base;

    /**
     * Applies a batch, then fails while commit failures are left to throw: the replay must change
     * nothing.
     */
    static final class FailingUpsert implements BatchFunction<RowData> {
        private static final long serialVersionUID = 1L;
        private final JdbcUpsert upsert;

        FailingUpsert(JdbcUpsert upsert) {
            this.upsert = upsert;
        }

        @Override
        public void apply(List<RowData> batch, long id) throws Exception {
            apply(batch, id, 0);
        }

        @Override
        public void apply(List<RowData> batch, long id, int writer) throws Exception {
            upsert.apply(batch, id, writer);
            if (!batch.isEmpty() && COMMIT_FAILURES.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new IllegalStateException("boom: injected commit failure");
            }
        }
    }

    private RunOptions options() {
        return options(8);
    }

    /**
     * Fast restarts: a test must not wait for the production backoff. Each failure of a task costs
     * two attempts: the task's own restart, then the global one the source asks for.
     */
    private RunOptions options(int attempts) {
        return RunOptions.builder()
                .base(Storage.location(base.toFile()))
                .parallelism(2)
                .printProgress(false)
                .maxFilesPerTrigger(1)
                .checkpointInterval(Duration.ofMillis(200))
                .flinkOption("restart-strategy.type", "exponential-delay")
                .flinkOption("restart-strategy.exponential-delay.initial-backoff", "100 ms")
                .flinkOption("restart-strategy.exponential-delay.max-backoff", "200 ms")
                .flinkOption(
                        "restart-strategy.exponential-delay.attempts-before-reset-backoff",
                        String.valueOf(attempts))
                .build();
    }

    /** Bronze, with a map that throws while failures are left to throw, after some rows. */
    private static Query failingBronze(Path events) {
        return new Query() {
            @Override
            public String name() {
                return "failing-bronze";
            }

            @Override
            public void build(QueryContext context) {
                DataStream<Event> events1 =
                        BronzeQuery.splitBad(
                                        EventSources.jsonFiles(
                                                context,
                                                "events",
                                                Storage.location(events.toFile()),
                                                null,
                                                false))
                                .map(
                                        (MapFunction<Event, Event>)
                                                e -> {
                                                    if (SEEN.incrementAndGet() > 1200
                                                            && OPERATOR_FAILURES.getAndUpdate(
                                                                            n -> Math.max(0, n - 1))
                                                                    > 0) {
                                                        throw new IllegalStateException(
                                                                "boom: injected operator failure");
                                                    }
                                                    return e;
                                                })
                                .returns(Event.class)
                                .name("may-fail")
                                .uid("may-fail");
                context.toTable(events1, EventTables.events("failing_bronze"));
            }
        };
    }

    private void land(RunOptions options) {
        for (int batch = 1; batch <= 4; batch++) {
            EventFiles.writeBatch(
                    options.events(), batch, EventGenerator.events((batch - 1) * 500L, 500));
        }
    }

    @Test
    void anOperatorThatFailsOnceRestartsFromTheCheckpointWithNothingLostOrDuplicated() {
        RunOptions options = options();
        land(options);
        SEEN.set(0);
        OPERATOR_FAILURES.set(1);

        QueryRunner.run(
                failingBronze(Storage.localFile(options.events(), "a test file").toPath()),
                options);

        assertThat(OPERATOR_FAILURES.get()).as("the failure was thrown").isZero();
        assertThat(new Warehouse(options.warehouse()).sortedValues("failing_bronze"))
                .extracting(r -> r.get(0))
                .containsExactlyElementsOf(LongStream.range(0, 2000).boxed().toList());
    }

    @Test
    void aRunThatKeepsFailingEndsAfterTheConfiguredAttemptsWithTheOperatorsOwnExceptionFirst() {
        // Three attempts: task failure, the source's global restart, task failure, global restart
        // (suppressed). The job's final cause is then the source's restart request, not the
        // operator's exception: the message must still lead with the operator's.
        RunOptions options = options(3);
        land(options);
        SEEN.set(0);
        OPERATOR_FAILURES.set(Integer.MAX_VALUE);
        try {
            assertThatThrownBy(
                            () ->
                                    QueryRunner.run(
                                            failingBronze(
                                                    Storage.localFile(
                                                                    options.events(), "a test file")
                                                            .toPath()),
                                            options))
                    .isInstanceOf(QueryException.class)
                    .hasMessageStartingWith(
                            "query 'failing-bronze' failed: IllegalStateException: boom: injected"
                                    + " operator failure\n")
                    .hasMessageContaining("in task 'Source: events -> split-bad-lines -> may-fail")
                    .hasMessageContaining("Recovery is suppressed")
                    .hasMessageContaining(
                            "restarted from the last checkpoint; restarting the whole query")
                    .hasMessageContaining("keeps what was committed");
        } finally {
            OPERATOR_FAILURES.set(0);
        }
    }

    @Test
    void aCommitThatFailsIsHandedAgainAndAppliedOnce() throws Exception {
        RunOptions options = options();
        land(options);
        QueryRunner.run(new BronzeQuery(options.events()), options);
        Database db = options.database();
        JdbcUpsert upsert =
                new JdbcUpsert(
                        db,
                        "events_upserted",
                        EventTables.EVENT_ROW,
                        "event_id",
                        () -> "commit-failure-test");
        upsert.createTables();
        COMMIT_FAILURES.set(2);
        Query query =
                new Query() {
                    @Override
                    public String name() {
                        return "failing-commit";
                    }

                    @Override
                    public void build(QueryContext context) {
                        DataStream<RowData> rows =
                                context.tableStream(EventTables.BRONZE, null, null);
                        context.toSink(
                                rows,
                                "events_upserted",
                                "upsert",
                                new ForEachBatchSink<RowData>(
                                        InternalTypeInfo.of(EventTables.EVENT_ROW)
                                                .createSerializer(
                                                        new org.apache.flink.api.common
                                                                .serialization
                                                                .SerializerConfigImpl()),
                                        new FailingUpsert(upsert)));
                    }
                };

        QueryRunner.run(query, options);

        assertThat(COMMIT_FAILURES.get()).isZero();
        assertThat(db.rows("events_upserted"))
                .extracting(r -> ((Number) r.get(0)).longValue())
                .containsExactlyElementsOf(LongStream.range(0, 2000).boxed().toList());
    }
}
