package org.flinkss.course.event;

import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.LogicalType;

import org.junit.jupiter.api.Test;

import org.flinkss.runtime.PermanentFailure;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Which fields of a landed line become columns of events_bronze, and what a type change does. */
class NewColumnsTest {

    private static final String LINE =
            "{\"event_id\":1,\"channel\":\"web\",\"score\":3,\"ratio\":0.5,\"ok\":true,"
                    + "\"device\":{\"os\":\"ios\"},\"gone\":null,\"Event_ID\":9}";

    private static ParsedEvent read(NewColumns columns, String json, String rescued) {
        ParsedEvent record = ParsedEvent.good(EventJson.parse(json), rescued);
        columns.apply(record, json, "/in/a.json", 7);
        return record;
    }

    @Test
    void fieldsBeyondTheEventColumnsBecomeColumnsTypedAsSparkInfersJson() {
        NewColumns columns = new NewColumns("events_bronze", Map.of(), false);

        ParsedEvent record = read(columns, LINE, null);

        // A null infers no type, and a column's name in another case is no new column.
        assertThat(record.columns)
                .isEqualTo(
                        "{\"channel\":\"web\",\"score\":3,\"ratio\":0.5,\"ok\":true,"
                                + "\"device\":{\"os\":\"ios\"}}");
        assertThat(read(columns, "{\"event_id\":2}", null).columns).isNull();
    }

    @Test
    void aTypeChangeIsRefusedInOneLineNamingFileLineFieldAndBothTypes() {
        Map<String, LogicalType> known =
                Map.of("score", new BigIntType(), "ratio", new DoubleType());
        NewColumns columns = new NewColumns("events_bronze", known, false);

        // A whole number fits a DOUBLE column.
        assertThat(read(columns, "{\"ratio\":2}", null).columns).isEqualTo("{\"ratio\":2}");
        assertThatThrownBy(() -> read(columns, "{\"score\":\"high\"}", null))
                .isInstanceOf(PermanentFailure.class)
                .hasMessageStartingWith(
                        "/in/a.json:7: field 'score' is BIGINT in events_bronze but STRING here"
                                + " (\"high\")");
        // A type a line of this reader gave a new column counts as the column's type.
        read(columns, "{\"channel\":true}", null);
        assertThatThrownBy(() -> read(columns, "{\"channel\":\"web\"}", null))
                .hasMessageContaining("field 'channel' is BOOLEAN");
    }

    @Test
    void withARescuedDataColumnATypeChangeIsRescuedAndColumnsLeaveTheRescuedData() {
        NewColumns columns =
                new NewColumns("events_bronze", Map.of("score", new BigIntType()), true);
        String json = "{\"event_id\":1,\"score\":\"high\",\"channel\":\"web\"}";

        ParsedEvent record =
                read(columns, json, EventJson.parseRescued(json, "/in/a.json").rescuedData);

        assertThat(record.columns).isEqualTo("{\"channel\":\"web\"}");
        assertThat(record.rescuedData)
                .isEqualTo("{\"score\":\"high\",\"_file_path\":\"/in/a.json\"}");
        String onlyNew = "{\"event_id\":1,\"channel\":\"app\"}";
        assertThat(
                        read(
                                        columns,
                                        onlyNew,
                                        EventJson.parseRescued(onlyNew, "/in/a.json").rescuedData)
                                .rescuedData)
                .isNull();
    }
}
