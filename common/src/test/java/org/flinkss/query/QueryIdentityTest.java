package org.flinkss.query;

import org.apache.flink.table.types.logical.RowType;

import org.flinkss.progress.Fragments;
import org.flinkss.table.EventTables;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A table's columns are part of its query's checkpoint identity, also for checkpoints older than that rule. */
class QueryIdentityTest {

    @TempDir
    Path dir;

    private static QueryIdentity bronze(RowType columns) {
        return new QueryIdentity("bronze", List.of("FileStreamSource[x]"), List.of("events_bronze"), List.of(),
                Map.of("events_bronze", QueryIdentity.columns(columns)));
    }

    @Test
    void theSameQueryWithOtherColumnsIsRefusedNamingTheChange() {
        CheckpointDir cp = new CheckpointDir(dir);
        String id = cp.checkIdentity(bronze(EventTables.EVENT_ROW));

        assertThat(cp.checkIdentity(bronze(EventTables.EVENT_ROW))).isEqualTo(id);
        assertThatThrownBy(() -> cp.checkIdentity(bronze(EventTables.RESCUED_EVENT_ROW)))
                .isInstanceOf(QueryException.class)
                .hasMessageContaining("query 'bronze' writes table 'events_bronze' with columns (event_id BIGINT, user_id INT, "
                        + "event_type STRING, event_ts TIMESTAMP_LTZ(3), amount DOUBLE), but this run writes it with (event_id BIGINT, "
                        + "user_id INT, event_type STRING, event_ts TIMESTAMP_LTZ(3), amount DOUBLE, _rescued_data STRING); "
                        + "added: _rescued_data STRING.")
                .hasMessageContaining("'reset bronze'");
    }

    @Test
    void aCheckpointRecordedWithoutColumnsLearnsThemFromItsNextRun() throws Exception {
        // Step 1: metadata.json as written before columns were part of the identity.
        Path meta = dir.resolve("metadata.json");
        Files.writeString(meta, "{\"name\":\"bronze\",\"sources\":[\"FileStreamSource[x]\"],\"sinks\":[\"events_bronze\"],"
                + "\"stateful\":[],\"id\":\"old-id\"}");
        CheckpointDir cp = new CheckpointDir(dir);

        // Step 2: the next run is accepted, and once its tables took the columns, they are recorded.
        assertThat(cp.checkIdentity(bronze(EventTables.EVENT_ROW))).isEqualTo("old-id");
        cp.recordTables(bronze(EventTables.EVENT_ROW));

        assertThat(Fragments.JSON.readTree(meta.toFile()).path("tables").path("events_bronze").toString())
                .isEqualTo("[\"event_id BIGINT\",\"user_id INT\",\"event_type STRING\",\"event_ts TIMESTAMP_LTZ(3)\",\"amount DOUBLE\"]");
        assertThat(Fragments.JSON.readTree(meta.toFile()).path("id").asText()).isEqualTo("old-id");
        assertThatThrownBy(() -> cp.checkIdentity(bronze(EventTables.RESCUED_EVENT_ROW)))
                .isInstanceOf(QueryException.class)
                .hasMessageContaining("added: _rescued_data");
    }
}
