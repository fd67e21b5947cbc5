package org.flinkss.runtime.checkpoint;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.QueryException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The identity in metadata.json: claimed once, kept, and tied to the layout version. */
class IdentityStoreTest {

    private static final QueryIdentity BRONZE =
            new QueryIdentity(
                    "bronze",
                    List.of("FileStreamSource[file:/data/events/*.json]"),
                    List.of("events_bronze"),
                    List.of());

    @TempDir Path dir;

    @Test
    void aNewCheckpointIsClaimedWithAnIdAndTheLayoutVersionThatLaterRunsKeep() throws Exception {
        CheckpointLayout layout = new CheckpointLayout(dir.resolve("bronze"));
        IdentityStore store = new IdentityStore(layout);
        store.checkLayout("bronze"); // a first run: nothing to check

        String id = store.claim(BRONZE);

        assertThat(JsonFiles.JSON.readTree(layout.metadata().toFile()).path("layout").asInt())
                .isEqualTo(CheckpointLayout.VERSION);
        store.checkLayout("bronze");
        assertThat(store.claim(BRONZE)).isEqualTo(id);
        assertThat(QueryIdentity.idIn(layout.metadata())).isEqualTo(id);
    }

    @Test
    void aCheckpointMadeBeforeTheLayoutVersionIsRefusedSayingToReset() throws Exception {
        // Step 1: metadata.json as every version before the packages moved wrote it: no layout.
        CheckpointLayout layout = new CheckpointLayout(dir.resolve("bronze"));
        Files.createDirectories(layout.dir());
        Files.writeString(
                layout.metadata(),
                "{\"name\":\"bronze\",\"sources\":[\"FileStreamSource[file:/data/events/*.json]\"],"
                    + "\"sinks\":[\"events_bronze\"],\"stateful\":[],\"tables\":{\"events_bronze\":[\"event_id"
                    + " BIGINT\"]},\"id\":\"old-id\"}");
        String before = Files.readString(layout.metadata());

        // Step 2: the run is refused in one line that names the checkpoint and the command.
        assertThatThrownBy(() -> new IdentityStore(layout).checkLayout("bronze"))
                .isInstanceOf(QueryException.class)
                .hasMessage(
                        "checkpoint "
                                + layout.dir()
                                + " of query 'bronze' was made by an earlier version of flinkss"
                                + " (its metadata.json has no layout version; this version reads"
                                + " layout 2): its savepoints name classes this version does not"
                                + " have, so it cannot be restored. Start over with 'reset bronze'"
                                + " (the checkpoint deleted, its tables emptied; the next run"
                                + " reprocesses everything).")
                .message()
                .doesNotContain("\n");
        // Step 3: nothing was changed.
        assertThat(Files.readString(layout.metadata())).isEqualTo(before);
    }

    @Test
    void aCheckpointOfAnotherLayoutVersionIsRefused() throws Exception {
        CheckpointLayout layout = new CheckpointLayout(dir.resolve("bronze"));
        new IdentityStore(layout).claim(BRONZE);
        String newer =
                Files.readString(layout.metadata())
                        .replace(
                                "\"layout\":" + CheckpointLayout.VERSION,
                                "\"layout\":" + (CheckpointLayout.VERSION + 1));
        Files.writeString(layout.metadata(), newer);

        assertThatThrownBy(() -> new IdentityStore(layout).checkLayout("bronze"))
                .isInstanceOf(QueryException.class)
                .hasMessageContaining("was made with layout 3, this version reads layout 2")
                .hasMessageContaining("'reset bronze'");
    }
}
