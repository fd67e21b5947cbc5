package org.flinkss.course.event;

import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableDescriptor;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The course's {@code land_events(batch, start, n)} as a Flink job: computes events {@code start ..
 * start + n - 1} and writes them to {@code <eventsDir>/batch_<batch>} with {@link
 * EventFiles#writeBatch}. The DataStream and the Table API versions write identical files.
 *
 * <p>The events are collected to the client and written as one part file, as Spark's {@code
 * coalesce(1)} does, so a batch must fit in the client's memory (the course lands 500 at a time).
 */
public final class LandEvents {

    private static final Logger LOG = LoggerFactory.getLogger(LandEvents.class);

    /** Runs of a batch's job before its failure is the command's (see {@link #collected}). */
    static final int ATTEMPTS = 3;

    private static final String IDS_TABLE = "land_events_ids";

    // The course's Spark expressions, with pmod spelled MOD(MOD(h, n) + n, n). Flink's
    // ROUND(DOUBLE, 2) rounds BigDecimal.valueOf(d) HALF_UP, exactly as Spark's round does
    // (LandEventsITCase checks all 10000 amounts), so no correction is needed after collecting.
    private static final String EVENTS_QUERY =
            """
            SELECT
              id AS event_id,
              MOD(MOD(spark_hash(id, 1), 50) + 50, 50) + 1 AS user_id,
              ARRAY['view', 'click', 'buy'][MOD(MOD(spark_hash(id, 2), 3) + 3, 3) + 1]
                AS event_type,
              TO_TIMESTAMP_LTZ(1740787200 + id * 10, 0) AS event_ts,
              ROUND(CAST(MOD(MOD(spark_hash(id, 3), 10000) + 10000, 10000) AS DOUBLE) / 100, 2)
                AS amount
            FROM %s
            """
                    .formatted(IDS_TABLE);

    private LandEvents() {}

    /**
     * Lands the batch with {@code fromSequence(...).map(EventGenerator::event)}, into a landing
     * folder on any storage Flink's file system serves (a local one, or {@code
     * s3://bucket/prefix/events}).
     */
    public static Path withDataStream(
            StreamExecutionEnvironment env, Path eventsDir, int batch, long start, int n) {
        return EventFiles.writeBatch(eventsDir, batch, withDataStream(env, batch, start, n));
    }

    private static List<Event> withDataStream(
            StreamExecutionEnvironment env, int batch, long start, int n) {
        return collected(
                batch,
                n,
                events -> {
                    try (CloseableIterator<Event> collected =
                            env.fromSequence(start, start + n - 1)
                                    .map(EventGenerator::event)
                                    .returns(Event.class)
                                    .executeAndCollect("land-events batch " + batch)) {
                        collected.forEachRemaining(events::add);
                    }
                });
    }

    /** One run of a batch's job, its events collected to the client. */
    @FunctionalInterface
    interface CollectJob {
        void collectInto(List<Event> events) throws Exception;
    }

    /**
     * The batch's events, sorted, from its job run up to {@link #ATTEMPTS} times: nothing is
     * written before a run gave every event, so a run that failed or gave a short batch is simply
     * run again. The last failure is the error, with its causes. (Seen once, in a CI run at a load
     * average of 20: a run of 500 events failed just after Flink's collect client found the job's
     * embedded cluster shut down, "Failed to get job status so we assume that the job has
     * terminated".)
     */
    static List<Event> collected(int batch, int n, CollectJob job) {
        if (n == 0) {
            return new ArrayList<>();
        }
        for (int attempt = 1; ; attempt++) {
            List<Event> events = new ArrayList<>(n);
            String failure;
            Exception cause = null;
            try {
                job.collectInto(events);
                if (events.size() == n) {
                    return sorted(events);
                }
                failure = "the job gave " + events.size() + " of " + n + " events";
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("landing batch " + batch + " was interrupted", e);
            } catch (Exception e) {
                cause = e;
                failure = described(e);
            }
            if (attempt == ATTEMPTS) {
                throw new IllegalStateException(
                        "landing batch "
                                + batch
                                + " failed "
                                + ATTEMPTS
                                + " times, the last: "
                                + failure
                                + "; nothing was landed, run land-events again",
                        cause);
            }
            LOG.warn(
                    "Landing batch {}: attempt {} of {} failed ({}); nothing was written, running"
                            + " its job again",
                    batch,
                    attempt,
                    ATTEMPTS,
                    failure);
        }
    }

    /**
     * Lands the batch with a SQL query over a {@code datagen} sequence, using the {@code
     * spark_hash} function ({@link SparkHashFunction}), into a landing folder on any storage
     * Flink's file system serves. Works in batch and in streaming mode.
     */
    public static Path withTable(
            TableEnvironment tEnv, Path eventsDir, int batch, long start, int n) {
        return EventFiles.writeBatch(eventsDir, batch, withTable(tEnv, batch, start, n));
    }

    private static List<Event> withTable(TableEnvironment tEnv, int batch, long start, int n) {
        if (n > 0) {
            if (!Arrays.asList(tEnv.listUserDefinedFunctions()).contains("spark_hash")) {
                tEnv.createTemporarySystemFunction("spark_hash", SparkHashFunction.class);
            }
            tEnv.dropTemporaryTable(IDS_TABLE);
            tEnv.createTemporaryTable(
                    IDS_TABLE,
                    TableDescriptor.forConnector("datagen")
                            .schema(Schema.newBuilder().column("id", DataTypes.BIGINT()).build())
                            .option("fields.id.kind", "sequence")
                            .option("fields.id.start", Long.toString(start))
                            .option("fields.id.end", Long.toString(start + n - 1))
                            // A sequence alone counts as unbounded, which batch mode refuses;
                            // each subtask takes the same share of the rows and of the sequence.
                            .option("number-of-rows", Integer.toString(n))
                            // The default, 10000 rows/s, would pause the job for a second.
                            .option("rows-per-second", Long.toString(Long.MAX_VALUE))
                            .build());
        }
        return collected(
                batch,
                n,
                events -> {
                    try (CloseableIterator<Row> rows =
                            tEnv.sqlQuery(EVENTS_QUERY).execute().collect()) {
                        rows.forEachRemaining(row -> events.add(toEvent(row)));
                    }
                });
    }

    /** An exception and its causes, in one line: what a failed run of the job said. */
    private static String described(Throwable failure) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = failure; t != null && t != t.getCause(); t = t.getCause()) {
            text.append(text.length() == 0 ? "" : ", caused by ")
                    .append(t.getClass().getSimpleName())
                    .append(": ")
                    .append(t.getMessage());
        }
        return text.toString();
    }

    private static Event toEvent(Row row) {
        return new Event(
                row.getFieldAs("event_id"),
                row.getFieldAs("user_id"),
                row.getFieldAs("event_type"),
                row.getFieldAs("event_ts"),
                row.getFieldAs("amount"));
    }

    /** Parallel subtasks emit in any order; the file lists events by id, as Spark's does. */
    private static List<Event> sorted(List<Event> events) {
        events.sort(Comparator.comparing(e -> e.eventId));
        return events;
    }
}
