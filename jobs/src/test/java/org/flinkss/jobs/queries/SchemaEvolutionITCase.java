package org.flinkss.jobs.queries;

import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.BadLines;
import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.EventJson;
import org.flinkss.course.event.SchemaEvolution;
import org.flinkss.course.queries.Api;
import org.flinkss.course.queries.BronzeITCase;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.course.queries.DedupQuery;
import org.flinkss.course.queries.WindowQuery;
import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 34 point 3: {@code run bronze --schema-evolution add-new-columns} (Auto Loader's {@code
 * addNewColumns}). A field landed mid-stream becomes a column of events_bronze in the one commit of
 * the batch that brought it; the checkpoint goes on; win5 and silver downstream write what they
 * write without the field; a type change is refused in one line, or rescued.
 */
class SchemaEvolutionITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path base;

    /** The event's line with further fields, as a newer producer writes it. */
    private static String with(Event event, String fields) {
        String json = EventJson.toJson(event);
        return json.substring(0, json.length() - 1) + "," + fields + "}";
    }

    private static BronzeQuery evolving(RunOptions options, boolean rescued) {
        return new BronzeQuery(
                options.events(), rescued, BadLines.PERMISSIVE, SchemaEvolution.ADD_NEW_COLUMNS);
    }

    private static List<Object> row(Event e, Object... more) {
        List<Object> row =
                new ArrayList<>(
                        Arrays.asList(e.eventId, e.userId, e.eventType, e.eventTs, e.amount));
        row.addAll(Arrays.asList(more));
        return row;
    }

    /** The log entries of a table that change its schema ({@code metaData} actions). */
    private static List<Long> schemaVersions(RunOptions options) throws IOException {
        Path log =
                Storage.localFile(options.warehouse(), "the warehouse")
                        .toPath()
                        .resolve(BronzeQuery.TABLE)
                        .resolve("_delta_log");
        List<Long> versions = new ArrayList<>();
        try (var entries = Files.list(log)) {
            for (Path entry : entries.filter(p -> p.toString().endsWith(".json")).toList()) {
                if (Files.readString(entry).contains("\"metaData\"")) {
                    String name = entry.getFileName().toString();
                    versions.add(Long.parseLong(name.substring(0, name.indexOf('.'))));
                }
            }
        }
        versions.sort(null);
        return versions;
    }

    @Test
    void aFieldLandedMidStreamIsOneSchemaCommitAndWin5AndSilverDownstreamAreUnchanged()
            throws Exception {
        List<Event> events = EventGenerator.events(0, 600);
        RunOptions evolved = BronzeITCase.options(base.resolve("evolved"), 2);
        RunOptions plain = BronzeITCase.options(base.resolve("plain"), 2);
        // Step 1: batch 1 as the course lands it; batch 2 from a newer producer: every third
        // event has a channel and a score. The plain base gets the same events without them.
        List<String> first = new ArrayList<>();
        List<String> second = new ArrayList<>();
        List<String> secondPlain = new ArrayList<>();
        for (Event e : events) {
            boolean late = e.eventId >= 500;
            String line =
                    late && e.eventId % 3 == 0
                            ? with(e, "\"channel\":\"web\",\"score\":" + e.eventId)
                            : EventJson.toJson(e);
            (late ? second : first).add(line);
            if (late) {
                secondPlain.add(EventJson.toJson(e));
            }
        }
        RescuedDataITCase.land(evolved, 1, first);
        RescuedDataITCase.land(plain, 1, first);
        QueryRunner.run(evolving(evolved, false), evolved);
        QueryRunner.run(new BronzeQuery(plain.events()), plain);
        Warehouse tables = new Warehouse(evolved.warehouse());
        assertThat(tables.rowType(BronzeQuery.TABLE)).isEqualTo(EventTables.EVENT_ROW);
        long beforeSecond = tables.delta(BronzeQuery.TABLE).version();

        // Step 2: the second batch on the same checkpoint.
        RescuedDataITCase.land(evolved, 2, second);
        RescuedDataITCase.land(plain, 2, secondPlain);
        QueryRunner.Result run = QueryRunner.run(evolving(evolved, false), evolved);
        QueryRunner.run(new BronzeQuery(plain.events()), plain);

        // Step 3: one commit, the batch's, changed the schema (the other is the table's creation);
        // the columns come in the order the lines brought them, typed by their values.
        assertThat(run.numInputRows()).isEqualTo(100);
        assertThat(tables.delta(BronzeQuery.TABLE).version()).isEqualTo(beforeSecond + 1);
        assertThat(schemaVersions(evolved)).containsExactly(0L, beforeSecond + 1);
        List<RowType.RowField> columns = new ArrayList<>(EventTables.EVENT_ROW.getFields());
        columns.add(new RowType.RowField("channel", VarCharType.STRING_TYPE));
        columns.add(new RowType.RowField("score", new BigIntType()));
        assertThat(tables.rowType(BronzeQuery.TABLE)).isEqualTo(new RowType(columns));
        List<List<Object>> bronze = tables.sortedValues(BronzeQuery.TABLE);
        assertThat(bronze).hasSize(600);
        assertThat(bronze.get(0)).isEqualTo(row(events.get(0), null, null));
        assertThat(bronze.get(501)).isEqualTo(row(events.get(501), "web", 501L));
        assertThat(bronze.get(502)).isEqualTo(row(events.get(502), null, null));
        assertThat(bronze.subList(0, 500)).allMatch(r -> r.get(5) == null && r.get(6) == null);

        // Step 4: win5 and silver over the evolved bronze write the tables they write over the
        // plain one.
        Warehouse plainTables = new Warehouse(plain.warehouse());
        for (RunOptions options : List.of(evolved, plain)) {
            QueryRunner.run(WindowQuery.win5(Api.DATASTREAM), options);
            QueryRunner.run(DedupQuery.silver(Api.DATASTREAM), options);
        }
        for (String downstream : List.of("events_5min", "events_silver")) {
            List<List<Object>> rows = plainTables.sortedValues(downstream);
            assertThat(rows).as(downstream).isNotEmpty();
            assertThat(tables.sortedValues(downstream))
                    .as(downstream)
                    .containsExactlyElementsOf(rows);
        }

        // Step 5: a score that is no longer a number is refused in one line naming the file, the
        // line, the field and both types; nothing is committed.
        Event e600 = EventGenerator.event(600);
        Path file3 = RescuedDataITCase.land(evolved, 3, List.of(with(e600, "\"score\":\"high\"")));
        long beforeThird = tables.delta(BronzeQuery.TABLE).version();
        assertThatThrownBy(() -> QueryRunner.run(evolving(evolved, false), evolved))
                .hasStackTraceContaining(
                        file3
                                + ":1: field 'score' is BIGINT in events_bronze but STRING here"
                                + " (\"high\")");
        assertThat(tables.delta(BronzeQuery.TABLE).version()).isEqualTo(beforeThird);

        // Step 6: with the rescued data column the checkpoint goes on: the table gains
        // _rescued_data, and the value is rescued instead.
        QueryRunner.Result rescued = QueryRunner.run(evolving(evolved, true), evolved);
        assertThat(rescued.numInputRows()).isEqualTo(1);
        assertThat(tables.rowType(BronzeQuery.TABLE).getFieldNames())
                .containsExactly(
                        "event_id",
                        "user_id",
                        "event_type",
                        "event_ts",
                        "amount",
                        "channel",
                        "score",
                        EventTables.RESCUED_DATA);
        List<Object> last = tables.sortedValues(BronzeQuery.TABLE).get(600);
        assertThat(last)
                .isEqualTo(
                        row(
                                e600,
                                null,
                                null,
                                "{\"score\":\"high\",\"_file_path\":\"" + file3 + "\"}"));
    }
}
