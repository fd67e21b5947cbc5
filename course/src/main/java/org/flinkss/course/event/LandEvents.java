package org.flinkss.course.event;

import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableDescriptor;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

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
        List<Event> events = new ArrayList<>(n);
        if (n > 0) {
            try (CloseableIterator<Event> collected =
                    env.fromSequence(start, start + n - 1)
                            .map(EventGenerator::event)
                            .returns(Event.class)
                            .executeAndCollect("land-events batch " + batch)) {
                collected.forEachRemaining(events::add);
            } catch (Exception e) {
                throw new IllegalStateException("landing batch " + batch + " failed", e);
            }
            requireWhole(batch, events, n);
        }
        return sorted(events);
    }

    /** The job's results come through a collect iterator: never land a short batch. */
    private static void requireWhole(int batch, List<Event> events, int n) {
        if (events.size() != n) {
            throw new IllegalStateException(
                    "landing batch "
                            + batch
                            + " failed: the job gave "
                            + events.size()
                            + " of "
                            + n
                            + " events; nothing was landed, run land-events again");
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
        List<Event> events = new ArrayList<>(n);
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
            try (CloseableIterator<Row> rows = tEnv.sqlQuery(EVENTS_QUERY).execute().collect()) {
                rows.forEachRemaining(row -> events.add(toEvent(row)));
            } catch (Exception e) {
                throw new IllegalStateException("landing batch " + batch + " failed", e);
            }
            requireWhole(batch, events, n);
        }
        return sorted(events);
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
