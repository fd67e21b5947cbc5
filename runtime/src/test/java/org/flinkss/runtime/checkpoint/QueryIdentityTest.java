package org.flinkss.runtime.checkpoint;

import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.TableDef;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A table's columns are part of its query's checkpoint identity; record tables are kept beside it.
 */
class QueryIdentityTest {

    private static final RowType EVENTS =
            TableDef.columns(
                    List.of("event_id", "user_id", "event_type", "event_ts", "amount"),
                    new BigIntType(),
                    new IntType(),
                    VarCharType.STRING_TYPE,
                    new LocalZonedTimestampType(3),
                    new DoubleType());
    private static final RowType WITH_RESCUED =
            TableDef.columns(
                    List.of(
                            "event_id",
                            "user_id",
                            "event_type",
                            "event_ts",
                            "amount",
                            "_rescued_data"),
                    new BigIntType(),
                    new IntType(),
                    VarCharType.STRING_TYPE,
                    new LocalZonedTimestampType(3),
                    new DoubleType(),
                    VarCharType.STRING_TYPE);

    @TempDir Path dir;

    private static QueryIdentity bronze(RowType columns) {
        return new QueryIdentity(
                "bronze",
                List.of("FileStreamSource[x]"),
                List.of("events_bronze"),
                List.of(),
                List.of(),
                Map.of("events_bronze", QueryIdentity.columns(columns)));
    }

    @Test
    void theSameQueryWithOtherColumnsIsRefusedNamingTheChange() {
        IdentityStore cp = new IdentityStore(new CheckpointLayout(Storage.location(dir.toFile())));
        String id = cp.claim(bronze(EVENTS));

        assertThat(cp.claim(bronze(EVENTS))).isEqualTo(id);
        assertThatThrownBy(() -> cp.claim(bronze(WITH_RESCUED)))
                .isInstanceOf(QueryException.class)
                .hasMessageContaining(
                        "query 'bronze' writes table 'events_bronze' with columns (event_id BIGINT,"
                            + " user_id INT, event_type STRING, event_ts TIMESTAMP_LTZ(3), amount"
                            + " DOUBLE), but this run writes it with (event_id BIGINT, user_id INT,"
                            + " event_type STRING, event_ts TIMESTAMP_LTZ(3), amount DOUBLE,"
                            + " _rescued_data STRING); added: _rescued_data STRING.")
                .hasMessageContaining("'reset bronze'");
    }

    @Test
    void aGrowingTableGoesOnWithMoreColumnsRecordsThemAndStillRefusesFewer() {
        IdentityStore cp = new IdentityStore(new CheckpointLayout(Storage.location(dir.toFile())));
        String id = cp.claim(bronze(EVENTS));
        Set<String> growing = Set.of("events_bronze");

        // Step 1: a run that may grow the table goes on with a column more, and it is recorded.
        assertThat(cp.claim(bronze(WITH_RESCUED).growing(growing))).isEqualTo(id);
        assertThat(cp.claim(bronze(WITH_RESCUED))).isEqualTo(id);
        // Step 2: fewer columns are refused, growing or not.
        assertThatThrownBy(() -> cp.claim(bronze(EVENTS).growing(growing)))
                .isInstanceOf(QueryException.class)
                .hasMessageContaining("dropped: _rescued_data STRING");
    }

    private static final List<String> SOURCES =
            List.of("FileStreamSource[file:/data/events/*.json]");
    private static final List<String> SINKS = List.of("events_bronze", "events_bronze_quarantine");

    @Test
    void aCheckpointMadeBeforeTheSkippedFilesTableExistedStaysTheQuerysAndLearnsTheTable()
            throws Exception {
        IdentityStore checkpoint =
                new IdentityStore(
                        new CheckpointLayout(Storage.location(dir.resolve("bronze").toFile())));
        // Step 1: a checkpoint of bronze from before skipped files were recorded.
        String id = checkpoint.claim(new QueryIdentity("bronze", SOURCES, SINKS, List.of()));

        // Step 2: today's bronze, with its record table: the same query, the same id.
        QueryIdentity now =
                new QueryIdentity(
                        "bronze",
                        SOURCES,
                        SINKS,
                        List.of(),
                        List.of("events_bronze_skipped_files"),
                        null);
        assertThat(checkpoint.claim(now)).isEqualTo(id);

        // Step 3: metadata.json now lists the record table, so that reset empties it too.
        JsonNode stored =
                JsonFiles.JSON.readTree(dir.resolve("bronze").resolve("metadata.json").toFile());
        assertThat(stored.path("id").asText()).isEqualTo(id);
        assertThat(stored.path("records").get(0).asText()).isEqualTo("events_bronze_skipped_files");
        assertThat(checkpoint.claim(now)).isEqualTo(id);
    }

    @Test
    void anotherSinkIsStillAnotherQuery() {
        IdentityStore checkpoint =
                new IdentityStore(
                        new CheckpointLayout(Storage.location(dir.resolve("bronze").toFile())));
        checkpoint.claim(
                new QueryIdentity(
                        "bronze",
                        SOURCES,
                        SINKS,
                        List.of(),
                        List.of("events_bronze_skipped_files"),
                        null));

        assertThatThrownBy(
                        () ->
                                checkpoint.claim(
                                        new QueryIdentity(
                                                "bronze",
                                                SOURCES,
                                                List.of("other_table"),
                                                List.of())))
                .isInstanceOf(QueryException.class)
                .hasMessageContaining("belongs to query 'bronze'");
    }
}
