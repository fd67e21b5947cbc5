package org.flinkss.jobs.queries;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.EventJson;
import org.flinkss.course.queries.Api;
import org.flinkss.course.queries.BronzeITCase;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.course.queries.LatestQuery;
import org.flinkss.course.queries.QueryCatalog;
import org.flinkss.course.queries.WindowQuery;
import org.flinkss.course.recompute.Recompute;
import org.flinkss.course.tables.EventTables;
import org.flinkss.jobs.Main;
import org.flinkss.jobs.cli.options.Values;
import org.flinkss.jobs.cli.output.TablePrinter;
import org.flinkss.jobs.cli.output.Tables;
import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.ops.QueryReset;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Course topic 11.14, "schema change in source: new columns": a new JSON field is skipped by the
 * explicit schema, or kept in {@code _rescued_data} (Auto Loader's rescued data column) by {@code
 * run bronze --rescued-data}; never a crash, and never a checkpoint that silently changes its
 * table's columns.
 */
class RescuedDataITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path base;

    /** Event 1 as a newer producer writes it: two fields the schema does not know. */
    private static String withNewFields(Event event) {
        String json = EventJson.toJson(event);
        return json.substring(0, json.length() - 1)
                + ",\"channel\":\"web\",\"device\":{\"os\":\"ios\",\"build\":[17, 4.10]}}";
    }

    /** Writes one landing file, as a producer would. */
    static Path land(RunOptions options, int batch, List<String> lines) throws IOException {
        Path file =
                Storage.localFile(options.events(), "a test file")
                        .toPath()
                        .resolve("batch_" + batch)
                        .resolve("part-00000-c000.json");
        Files.createDirectories(file.getParent());
        return Files.write(file, lines);
    }

    /**
     * A row of events_bronze with the rescued data column, as {@link Warehouse#sortedValues} gives
     * it.
     */
    private static List<Object> row(Event e, String rescuedData) {
        return Arrays.asList(e.eventId, e.userId, e.eventType, e.eventTs, e.amount, rescuedData);
    }

    private static List<Object> row(Event e) {
        return Arrays.asList(e.eventId, e.userId, e.eventType, e.eventTs, e.amount);
    }

    @Test
    void newFieldsAreSkippedByTheExplicitSchemaByDefault() throws IOException {
        RunOptions options = BronzeITCase.options(base, 2);
        Event e0 = EventGenerator.event(0);
        Event e1 = EventGenerator.event(1);
        land(options, 1, List.of(EventJson.toJson(e0), withNewFields(e1)));

        QueryRunner.Result run = QueryRunner.run(new BronzeQuery(options.events()), options);

        Warehouse warehouse = new Warehouse(options.warehouse());
        assertThat(warehouse.rowType(BronzeQuery.TABLE)).isEqualTo(EventTables.EVENT_ROW);
        assertThat(warehouse.sortedValues(BronzeQuery.TABLE)).containsExactly(row(e0), row(e1));
        assertThat(warehouse.count(BronzeQuery.QUARANTINE)).isZero();
        assertThat(run.lastProgress.path("sources").path(0).path("numBadRows").asLong()).isZero();
    }

    @Test
    void rescuedDataKeepsNewFieldsAndValuesOfTheWrongTypeAndOnlyNonJsonGoesToQuarantine()
            throws IOException {
        RunOptions options = BronzeITCase.options(base, 2);
        Event e0 = EventGenerator.event(0);
        Event e1 = EventGenerator.event(1);
        Event e2 = EventGenerator.event(2);
        Event e3 = EventGenerator.event(3);
        String wrongType =
                EventJson.toJson(e2)
                        .replace("\"user_id\":" + e2.userId, "\"user_id\":\"u" + e2.userId + "\"");
        Path file1 = land(options, 1, List.of(EventJson.toJson(e0), withNewFields(e1)));
        Path file2 =
                land(options, 2, List.of(wrongType, "", "this is not json", EventJson.toJson(e3)));

        // Step 1: what bronze must hold, declared first. A line that fits has nothing to rescue;
        // a value of the wrong type leaves its column null (it no longer quarantines the line).
        List<List<Object>> expected =
                List.of(
                        row(e0, null),
                        row(
                                e1,
                                "{\"channel\":\"web\",\"device\":{\"os\":\"ios\",\"build\":[17,4.10]},\"_file_path\":\""
                                        + file1
                                        + "\"}"),
                        row(
                                new Event(e2.eventId, null, e2.eventType, e2.eventTs, e2.amount),
                                "{\"user_id\":\"u"
                                        + e2.userId
                                        + "\",\"_file_path\":\""
                                        + file2
                                        + "\"}"),
                        row(e3, null),
                        // Not JSON: Spark's row of nulls (issue 37), and the quarantine's record.
                        row(new Event(), null));

        // Step 2: run bronze with the rescued data column.
        QueryRunner.Result run = QueryRunner.run(new BronzeQuery(options.events(), true), options);

        // Step 3: exact contents; the quarantine holds only the line that is not JSON.
        Warehouse warehouse = new Warehouse(options.warehouse());
        assertThat(warehouse.rowType(BronzeQuery.TABLE).getFieldNames())
                .containsExactly(
                        "event_id", "user_id", "event_type", "event_ts", "amount", "_rescued_data");
        assertThat(warehouse.sortedValues(BronzeQuery.TABLE))
                .containsExactlyInAnyOrderElementsOf(expected);
        assertThat(warehouse.sortedValues(BronzeQuery.QUARANTINE))
                .extracting(r -> r.subList(0, 3))
                .containsExactly(List.of(file2.toString(), 3L, "this is not json"));
        assertThat(run.numInputRows()).isEqualTo(5);
        assertThat(run.lastProgress.path("sources").path(0).path("numBadRows").asLong())
                .isEqualTo(1);

        // Step 4: table show and export show the column.
        Tables tables = new Tables(warehouse, null);
        assertThat(
                        TablePrinter.show(tables, BronzeQuery.TABLE, 20)
                                .lines()
                                .skip(1)
                                .findFirst()
                                .orElseThrow())
                .contains("| _rescued_data");
        ByteArrayOutputStream csv = new ByteArrayOutputStream();
        TablePrinter.export(
                tables, BronzeQuery.TABLE, new PrintStream(csv, true, StandardCharsets.UTF_8));
        assertThat(csv.toString(StandardCharsets.UTF_8).lines().toList())
                .startsWith(
                        "event_id,user_id,event_type,event_ts,amount,_rescued_data",
                        ",,,,,",
                        "0,4,view,2025-03-01T00:00:00.000Z,95.94,",
                        "1,50,buy,2025-03-01T00:00:10.000Z,81.61,\"{\"\"channel\"\":\"\"web\"\",\"\"device\"\":{\"\"os\"\":\"\"ios\"\","
                            + "\"\"build\"\":[17,4.10]},\"\"_file_path\"\":\"\""
                                + file1
                                + "\"\"}\"");
    }

    @Test
    void aCheckpointMadeWithoutTheRescuedDataColumnGoesOnWithItButNotTheReverse() throws Exception {
        RunOptions options = BronzeITCase.options(base, 2);
        Warehouse warehouse = new Warehouse(options.warehouse());
        land(
                options,
                1,
                List.of(
                        EventJson.toJson(EventGenerator.event(0)),
                        withNewFields(EventGenerator.event(1))));
        QueryRunner.run(new BronzeQuery(options.events()), options);
        long before = warehouse.delta(BronzeQuery.TABLE).version();
        Path file2 = land(options, 2, List.of(withNewFields(EventGenerator.event(2))));

        // Step 1: the flag on a checkpoint made without it: the table gains the column in a
        // commit of its own, the rows before read it as null, the next batch fills it.
        QueryRunner.Result run = QueryRunner.run(new BronzeQuery(options.events(), true), options);

        assertThat(run.numInputRows()).isEqualTo(1);
        assertThat(warehouse.rowType(BronzeQuery.TABLE)).isEqualTo(EventTables.RESCUED_EVENT_ROW);
        assertThat(warehouse.delta(BronzeQuery.TABLE).version()).isEqualTo(before + 2);
        assertThat(warehouse.sortedValues(BronzeQuery.TABLE))
                .extracting(r -> r.get(5))
                .containsExactly(
                        null,
                        null,
                        "{\"channel\":\"web\",\"device\":{\"os\":\"ios\",\"build\":[17,4.10]},\"_file_path\":\""
                                + file2
                                + "\"}");

        // Step 2: the reverse: a checkpoint that has the column refuses a run without it, before
        // any data moves; the command line says so and exits 1.
        land(options, 3, List.of(EventJson.toJson(EventGenerator.event(3))));
        assertThatThrownBy(() -> QueryRunner.run(new BronzeQuery(options.events()), options))
                .isInstanceOf(QueryException.class)
                .hasMessageContaining("dropped: _rescued_data")
                .hasMessageContaining("'reset bronze'");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream stderr = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        int code;
        try {
            code = Main.execute("run", "bronze", "--quiet", "--base", options.base().toString());
        } finally {
            System.setErr(stderr);
        }
        assertThat(code).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .startsWith("error: checkpoint ")
                .contains("dropped: _rescued_data");
        assertThat(warehouse.count(BronzeQuery.TABLE)).isEqualTo(3);

        // Step 3: after a reset, a run without the flag rebuilds the table without the column.
        QueryReset.reset(
                options.base(), warehouse, options.database(), QueryCatalog.BRONZE.queryName());
        assertThat(QueryRunner.run(new BronzeQuery(options.events()), options).numInputRows())
                .isEqualTo(4);
        assertThat(warehouse.rowType(BronzeQuery.TABLE)).isEqualTo(EventTables.EVENT_ROW);
    }

    @Test
    void queriesReadingBronzeGiveTheSameTablesWhenItHasTheRescuedDataColumn() throws Exception {
        // Step 1: the same landed files in two bases, every other line with new fields.
        List<String> lines = new ArrayList<>();
        for (Event e : EventGenerator.events(0, 1000)) {
            lines.add(e.eventId % 2 == 0 ? EventJson.toJson(e) : withNewFields(e));
        }
        RunOptions plain = BronzeITCase.options(base.resolve("plain"), 2);
        RunOptions rescued = BronzeITCase.options(base.resolve("rescued"), 2);
        RunOptions rescuedTableApi = BronzeITCase.options(base.resolve("rescued-table-api"), 2);
        for (RunOptions options : List.of(plain, rescued, rescuedTableApi)) {
            land(options, 1, lines.subList(0, 500));
            land(options, 2, lines.subList(500, 1000));
        }

        // Step 2: bronze without and with the rescued data column, then win5 (both APIs), recompute
        // and latest.
        QueryRunner.run(new BronzeQuery(plain.events()), plain);
        QueryRunner.run(WindowQuery.win5(Api.DATASTREAM), plain);
        QueryRunner.run(new BronzeQuery(rescued.events(), true), rescued);
        QueryRunner.run(WindowQuery.win5(Api.DATASTREAM), rescued);
        Warehouse plainTables = new Warehouse(plain.warehouse());
        Warehouse rescuedTables = new Warehouse(rescued.warehouse());
        assertThat(rescuedTables.count(BronzeQuery.TABLE)).isEqualTo(1000);
        List<List<Object>> windows = plainTables.sortedValues("events_5min");
        assertThat(windows).isNotEmpty();
        assertThat(rescuedTables.sortedValues("events_5min")).containsExactlyElementsOf(windows);

        QueryRunner.run(new BronzeQuery(rescuedTableApi.events(), true), rescuedTableApi);
        QueryRunner.run(WindowQuery.win5(Api.TABLE), rescuedTableApi);
        assertThat(new Warehouse(rescuedTableApi.warehouse()).sortedValues("events_5min"))
                .containsExactlyElementsOf(windows);

        // The batch recompute from bronze (Flink SQL over its Parquet files) reads past the extra
        // column.
        Recompute.Result recomputed =
                Recompute.recompute(
                        rescuedTables,
                        null,
                        rescued.base(),
                        "events_5min",
                        Values.timestamp("2025-03-01T00:00:00Z").toEpochMilli(),
                        Values.timestamp("2025-03-01T01:00:00Z").toEpochMilli());
        assertThat(recomputed.written).isEqualTo(recomputed.removed).isEqualTo(12 * 3);
        assertThat(rescuedTables.sortedValues("events_5min")).containsExactlyElementsOf(windows);

        // latest upserts the event's columns into SQL, also from a bronze with the extra column.
        QueryRunner.run(new LatestQuery(rescued.database()), rescued);
        List<List<Object>> events = new ArrayList<>();
        for (List<Object> row : rescuedTables.sortedValues(BronzeQuery.TABLE)) {
            events.add(row.subList(0, 5));
        }
        assertThat(new Tables(rescuedTables, rescued.database()).sortedValues(LatestQuery.TABLE))
                .hasSize(1000)
                .containsExactlyElementsOf(events);
    }
}
