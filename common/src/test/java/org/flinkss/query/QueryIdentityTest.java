package org.flinkss.query;

import com.fasterxml.jackson.databind.JsonNode;

import org.flinkss.progress.Fragments;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class QueryIdentityTest {

    @TempDir
    Path dir;

    private static final List<String> SOURCES = List.of("FileStreamSource[file:/data/events/*.json]");
    private static final List<String> SINKS = List.of("events_bronze", "events_bronze_quarantine");

    @Test
    void aCheckpointMadeBeforeTheSkippedFilesTableExistedStaysTheQuerysAndLearnsTheTable() throws Exception {
        CheckpointDir checkpoint = new CheckpointDir(dir.resolve("bronze"));
        // Step 1: a checkpoint of bronze from before skipped files were recorded.
        String id = checkpoint.checkIdentity(new QueryIdentity("bronze", SOURCES, SINKS, List.of()));

        // Step 2: today's bronze, with its record table: the same query, the same id.
        QueryIdentity now = new QueryIdentity("bronze", SOURCES, SINKS, List.of(), List.of("events_bronze_skipped_files"));
        assertThat(checkpoint.checkIdentity(now)).isEqualTo(id);

        // Step 3: metadata.json now lists the record table, so that reset empties it too.
        JsonNode stored = Fragments.JSON.readTree(dir.resolve("bronze").resolve("metadata.json").toFile());
        assertThat(stored.path("id").asText()).isEqualTo(id);
        assertThat(stored.path("records").get(0).asText()).isEqualTo("events_bronze_skipped_files");
        assertThat(checkpoint.checkIdentity(now)).isEqualTo(id);
    }

    @Test
    void anotherSinkIsStillAnotherQuery() {
        CheckpointDir checkpoint = new CheckpointDir(dir.resolve("bronze"));
        checkpoint.checkIdentity(new QueryIdentity("bronze", SOURCES, SINKS, List.of(), List.of("events_bronze_skipped_files")));

        assertThatThrownBy(() -> checkpoint.checkIdentity(new QueryIdentity("bronze", SOURCES, List.of("other_table"), List.of())))
                .isInstanceOf(QueryException.class)
                .hasMessageContaining("belongs to query 'bronze'");
    }
}
