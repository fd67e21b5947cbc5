package org.flinkss.course.queries;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.sink.jdbc.Database;
import org.flinkss.runtime.sink.jdbc.JdbcUpsert;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/** Topic 11.13: foreachBatch + MERGE into a SQL table, exactly once, on SQLite and PostgreSQL. */
class LatestITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    private static EmbeddedPostgres postgres;

    @TempDir Path base;

    @AfterAll
    static void stopPostgres() throws Exception {
        if (postgres != null) {
            postgres.close();
        }
    }

    /** SQLite in the warehouse, or a real PostgreSQL server started here from Maven's binaries. */
    private Database database(String kind, RunOptions options) throws Exception {
        if (kind.equals("sqlite")) {
            return options.database();
        }
        if (postgres == null) {
            postgres = EmbeddedPostgres.builder().start();
        }
        String schema = "t" + Math.abs(System.nanoTime());
        try (Connection c = postgres.getPostgresDatabase().getConnection();
                Statement s = c.createStatement()) {
            s.executeUpdate("CREATE DATABASE " + schema);
        }
        return new Database(
                "jdbc:postgresql://localhost:"
                        + postgres.getPort()
                        + "/"
                        + schema
                        + "?user=postgres");
    }

    /** The run's options: parallelism 2, the SQL sink in {@code db}. */
    private RunOptions runOptions(String kind, Database db) {
        return RunOptions.builder()
                .base(Storage.location(base.toFile()))
                .parallelism(2)
                .printProgress(false)
                .jdbcUrl(kind.equals("sqlite") ? null : dbUrl(db))
                .build();
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void upsertsMergeOnTheKeyAndAReplayedBatchChangesNothing(String kind) throws Exception {
        Database db = database(kind, BronzeITCase.options(base, 2));
        RunOptions options = runOptions(kind, db);

        // Step 1: batches 1 and 2 into bronze, then latest: 1000 rows, one per event_id.
        EventFiles.writeBatch(options.events(), 1, EventGenerator.events(0, 500));
        EventFiles.writeBatch(options.events(), 2, EventGenerator.events(500, 500));
        QueryRunner.run(new BronzeQuery(options.events()), options);
        QueryRunner.Result first = QueryRunner.run(new LatestQuery(db), options);
        assertThat(first.lastProgress.path("sink").path("numOutputRows").asLong()).isEqualTo(1000);
        assertThat(db.count(LatestQuery.TABLE)).isEqualTo(1000);

        // Step 2: ids 0..99 again with new amounts: MERGE updates them, inserts nothing.
        List<Event> changed = new ArrayList<>();
        for (Event e : EventGenerator.events(0, 100)) {
            e.amount = e.amount + 1000;
            changed.add(e);
        }
        EventFiles.writeBatch(options.events(), 3, changed);
        QueryRunner.run(new BronzeQuery(options.events()), options);
        QueryRunner.run(new LatestQuery(db), options);
        List<List<Object>> rows = db.rows(LatestQuery.TABLE);
        assertThat(rows)
                .extracting(r -> ((Number) r.get(0)).longValue())
                .containsExactlyElementsOf(LongStream.range(0, 1000).boxed().toList());
        assertThat(rows.subList(0, 100))
                .allSatisfy(r -> assertThat((Double) r.get(4)).isGreaterThanOrEqualTo(1000.0));
        assertThat(rows.subList(100, 1000))
                .allSatisfy(r -> assertThat((Double) r.get(4)).isLessThan(1000.0));

        // Step 3: the same batch id handed again (as after a failure) changes nothing, even with
        // other rows.
        JdbcUpsert upsert =
                new JdbcUpsert(
                        db,
                        LatestQuery.TABLE,
                        EventTables.EVENT_ROW,
                        "event_id",
                        () -> "replay-test");
        List<RowData> batch = new ArrayList<>();
        for (Event e : EventGenerator.events(5000, 10)) {
            batch.add(EventTables.toRow(e));
        }
        upsert.apply(batch, 7);
        List<List<Object>> afterFirst = db.rows(LatestQuery.TABLE);
        batch.clear();
        batch.add(EventTables.toRow(EventGenerator.event(6000)));
        upsert.apply(batch, 7);
        upsert.apply(List.of(), 8);
        assertThat(db.rows(LatestQuery.TABLE)).isEqualTo(afterFirst).hasSize(1010);
        assertThat(db.count("_flinkss_batches")).isGreaterThanOrEqualTo(4);
    }

    /**
     * The course's {@code MERGE ... ON t.event_id = s.event_id}: a null event_id equals nothing, so
     * Delta's MERGE never matches such a row and inserts it ({@code WHEN NOT MATCHED THEN INSERT
     * *}), a row of its own every time. Both databases hold them: the key is UNIQUE, which takes
     * nulls, not a PRIMARY KEY, which PostgreSQL makes NOT NULL (the batch failed there, again and
     * again).
     */
    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void aNullEventIdIsARowOfItsOwnAsDeltasMergeInsertsIt(String kind) throws Exception {
        Database db = database(kind, BronzeITCase.options(base, 2));
        RunOptions options = runOptions(kind, db);
        Event noId = new Event(null, 7, "view", Instant.parse("2025-03-01T00:00:05Z"), 1.0);
        Event noIdEither = new Event(null, 8, "buy", Instant.parse("2025-03-01T00:00:06Z"), 2.0);

        // Step 1: ten events and two without an event_id: twelve rows.
        List<Event> batch1 = new ArrayList<>(EventGenerator.events(0, 10));
        batch1.addAll(List.of(noId, noIdEither));
        EventFiles.writeBatch(options.events(), 1, batch1);
        QueryRunner.run(new BronzeQuery(options.events()), options);
        QueryRunner.run(new LatestQuery(db), options);
        assertThat(db.count(LatestQuery.TABLE)).isEqualTo(12);

        // Step 2: the same null-key event again with ids 0..4: the ids are updated, the null-key
        // row is inserted once more (it matches nothing, not even itself).
        List<Event> batch2 = new ArrayList<>(EventGenerator.events(0, 5));
        batch2.add(noId);
        EventFiles.writeBatch(options.events(), 2, batch2);
        QueryRunner.run(new BronzeQuery(options.events()), options);
        QueryRunner.run(new LatestQuery(db), options);
        List<List<Object>> rows = db.rows(LatestQuery.TABLE);
        assertThat(rows).hasSize(13);
        assertThat(rows)
                .filteredOn(r -> r.get(0) == null)
                .extracting(r -> r.get(1))
                .containsExactlyInAnyOrder(7, 7, 8);

        // Step 3: a replayed batch still changes nothing, null keys included.
        JdbcUpsert upsert =
                new JdbcUpsert(
                        db, LatestQuery.TABLE, EventTables.EVENT_ROW, "event_id", () -> "replay");
        upsert.apply(List.of(EventTables.toRow(noId)), 3);
        upsert.apply(List.of(EventTables.toRow(noId)), 3);
        assertThat(db.count(LatestQuery.TABLE)).isEqualTo(14);

        // Step 4: a batch with deletes (updated row by row): deleting a null key deletes nothing,
        // a null-key row is inserted once more, event 0 is deleted.
        RowData deleteNoId = EventTables.toRow(noId);
        deleteNoId.setRowKind(RowKind.DELETE);
        RowData deleteFirst = EventTables.toRow(EventGenerator.event(0));
        deleteFirst.setRowKind(RowKind.DELETE);
        upsert.apply(List.of(deleteNoId, EventTables.toRow(noIdEither), deleteFirst), 4);
        rows = db.rows(LatestQuery.TABLE);
        assertThat(rows).hasSize(14);
        assertThat(rows)
                .filteredOn(r -> r.get(0) == null)
                .extracting(r -> r.get(1))
                .containsExactlyInAnyOrder(7, 7, 7, 8, 8);
        assertThat(rows).noneMatch(r -> r.get(0) != null && ((Number) r.get(0)).longValue() == 0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void aTableMadeWithTheKeyAsPrimaryKeyTakesNullKeysToo(String kind) throws Exception {
        Database db = database(kind, BronzeITCase.options(base, 1));
        // As earlier versions made it: event_id PRIMARY KEY (NOT NULL in PostgreSQL).
        String timestamp = kind.equals("sqlite") ? "VARCHAR(40)" : "TIMESTAMP WITH TIME ZONE";
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.executeUpdate(
                    "CREATE TABLE latest_before (event_id BIGINT PRIMARY KEY, user_id INTEGER,"
                            + " event_type VARCHAR(255), event_ts "
                            + timestamp
                            + ", amount DOUBLE PRECISION)");
        }
        JdbcUpsert upsert =
                new JdbcUpsert(db, "latest_before", EventTables.EVENT_ROW, "event_id", () -> "old");
        upsert.createTables();

        upsert.apply(
                List.of(
                        EventTables.toRow(EventGenerator.event(1)),
                        EventTables.toRow(new Event(null, 7, "view", null, null))),
                0);
        upsert.apply(List.of(EventTables.toRow(new Event(null, 8, "buy", null, null))), 1);

        assertThat(db.count("latest_before")).isEqualTo(3);
    }

    /**
     * Update mode's upserts: a window and its group as the key, nulls in it, deletes, and a replay.
     */
    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void compositeKeysWithNullsUpsertDeleteAndReplayIdempotently(String kind) throws Exception {
        Database db = database(kind, BronzeITCase.options(base, 1));
        RowType type = EventTables.windowRow("event_type", VarCharType.STRING_TYPE);
        JdbcUpsert upsert =
                new JdbcUpsert(
                        db,
                        "windows_updated",
                        type,
                        List.of("window_start", "window_end", "event_type"),
                        () -> "composite");
        upsert.createTables();
        upsert.apply(
                List.of(
                        window(0, "view", 1, 1.5),
                        window(0, null, 2, 2.0),
                        window(5, "buy", 1, 9.0)),
                0);
        // Batch 1: both keys grow (the null group too), one row is deleted, one is new.
        RowData gone = window(5, "buy", 1, 9.0);
        gone.setRowKind(RowKind.DELETE);
        List<RowData> batch1 =
                List.of(
                        window(0, "view", 3, 4.5),
                        window(0, null, 5, 7.0),
                        gone,
                        window(10, "cart", 1, 1.0));
        upsert.apply(batch1, 1);
        List<List<Object>> expected =
                List.of(
                        List.of(
                                Instant.ofEpochMilli(0),
                                Instant.ofEpochMilli(5 * 60_000),
                                "view",
                                3L,
                                4.5),
                        List.of(
                                Instant.ofEpochMilli(10 * 60_000),
                                Instant.ofEpochMilli(15 * 60_000),
                                "cart",
                                1L,
                                1.0));
        List<List<Object>> rows = db.rows("windows_updated");
        assertThat(rows).hasSize(3).containsAll(expected);
        assertThat(rows)
                .filteredOn(r -> r.get(2) == null)
                .containsExactly(
                        Arrays.asList(
                                Instant.ofEpochMilli(0),
                                Instant.ofEpochMilli(5 * 60_000),
                                null,
                                5L,
                                7.0));
        // Batch 1 handed again, even with other rows: nothing changes.
        upsert.apply(List.of(window(0, "view", 99, 99.0)), 1);
        assertThat(db.rows("windows_updated")).isEqualTo(rows);
    }

    private static RowData window(long startMinute, String type, long events, double amount) {
        return GenericRowData.of(
                TimestampData.fromEpochMillis(startMinute * 60_000),
                TimestampData.fromEpochMillis((startMinute + 5) * 60_000),
                type == null ? null : StringData.fromString(type),
                events,
                amount);
    }

    private static String dbUrl(Database db) {
        return db.describe().replace("user=***", "user=postgres");
    }
}
