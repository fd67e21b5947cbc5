package org.flinkss.runtime.checkpoint;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.storage.Storage;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The identity in metadata.json: claimed once, kept, and tied to the layout version. */
class IdentityStoreTest {

    static final QueryIdentity BRONZE =
            new QueryIdentity(
                    "bronze",
                    List.of("FileStreamSource[file:/data/events/*.json]"),
                    List.of("events_bronze"),
                    List.of());

    @TempDir Path dir;

    @Test
    void aNewCheckpointIsClaimedWithAnIdAndTheLayoutVersionThatLaterRunsKeep() throws Exception {
        CheckpointLayout layout =
                new CheckpointLayout(Storage.location(dir.resolve("bronze").toFile()));
        IdentityStore store = new IdentityStore(layout);
        store.checkLayout("bronze"); // a first run: nothing to check

        String id = store.claim(BRONZE);

        assertThat(
                        JsonFiles.JSON
                                .readTree(Storage.localFile(layout.metadata(), "a test file"))
                                .path("layout")
                                .asInt())
                .isEqualTo(CheckpointLayout.VERSION);
        store.checkLayout("bronze");
        assertThat(store.claim(BRONZE)).isEqualTo(id);
        assertThat(QueryIdentity.idIn(layout)).isEqualTo(id);
    }

    @Test
    void aCheckpointMadeBeforeTheLayoutVersionIsRefusedSayingToReset() throws Exception {
        // Step 1: metadata.json as every version before the packages moved wrote it: no layout.
        CheckpointLayout layout =
                new CheckpointLayout(Storage.location(dir.resolve("bronze").toFile()));
        Files.createDirectories(Storage.localFile(layout.location(), "a test file").toPath());
        Files.writeString(
                Storage.localFile(layout.metadata(), "a test file").toPath(),
                "{\"name\":\"bronze\",\"sources\":[\"FileStreamSource[file:/data/events/*.json]\"],"
                    + "\"sinks\":[\"events_bronze\"],\"stateful\":[],\"tables\":{\"events_bronze\":[\"event_id"
                    + " BIGINT\"]},\"id\":\"old-id\"}");
        String before =
                Files.readString(Storage.localFile(layout.metadata(), "a test file").toPath());

        // Step 2: the run is refused in one line that names the checkpoint and the command.
        assertThatThrownBy(() -> new IdentityStore(layout).checkLayout("bronze"))
                .isInstanceOf(QueryException.class)
                .hasMessage(
                        "checkpoint "
                                + Storage.localFile(layout.location(), "a test file").toPath()
                                + " of query 'bronze' was made by an earlier version of flinkss"
                                + " (its metadata.json has no layout version; this version reads"
                                + " layout 2): its savepoints name classes this version does not"
                                + " have, so it cannot be restored. Start over with 'reset bronze'"
                                + " (the checkpoint deleted, its tables emptied; the next run"
                                + " reprocesses everything).")
                .message()
                .doesNotContain("\n");
        // Step 3: nothing was changed.
        assertThat(Files.readString(Storage.localFile(layout.metadata(), "a test file").toPath()))
                .isEqualTo(before);
    }

    @Test
    void aCheckpointOfAnotherLayoutVersionIsRefused() throws Exception {
        CheckpointLayout layout =
                new CheckpointLayout(Storage.location(dir.resolve("bronze").toFile()));
        new IdentityStore(layout).claim(BRONZE);
        String newer =
                Files.readString(Storage.localFile(layout.metadata(), "a test file").toPath())
                        .replace(
                                "\"layout\":" + CheckpointLayout.VERSION,
                                "\"layout\":" + (CheckpointLayout.VERSION + 1));
        Files.writeString(Storage.localFile(layout.metadata(), "a test file").toPath(), newer);

        assertThatThrownBy(() -> new IdentityStore(layout).checkLayout("bronze"))
                .isInstanceOf(QueryException.class)
                .hasMessageContaining("was made with layout 3, this version reads layout 2")
                .hasMessageContaining("'reset bronze'");
    }

    /** The identity bronze, win5 and latest record in the base {@code base}. */
    private static QueryIdentity at(Path base) {
        String uri = uri(base);
        return new QueryIdentity(
                "latest",
                List.of("DeltaSource[" + uri + "warehouse/events_bronze/]"),
                List.of(
                        "DeltaSink[" + uri + "warehouse/events_5min/]",
                        "ForeachBatchSink[upsert into events_latest at jdbc:sqlite:"
                                + base
                                + "/warehouse/warehouse.db]",
                        "DeltaSink[file:/elsewhere" + base + "/warehouse/outside/]"),
                List.of());
    }

    @Test
    void aMovedOrCopiedBaseKeepsItsCheckpointsIdentityAndId() throws Exception {
        // Step 1: the checkpoint is claimed at one place; every path under the base is relative.
        Path before = dir.resolve("before");
        CheckpointLayout here = CheckpointLayout.of(Storage.location(before.toFile()), "latest");
        String id = new IdentityStore(here).claim(at(before));
        String recorded =
                Files.readString(Storage.localFile(here.metadata(), "a test file").toPath());
        assertThat(recorded)
                .contains("DeltaSource[${base}/warehouse/events_bronze/]")
                .contains("DeltaSink[${base}/warehouse/events_5min/]")
                .contains("jdbc:sqlite:${base}/warehouse/warehouse.db")
                .as("a path that only contains the base's path is not under it")
                .contains("DeltaSink[file:/elsewhere" + before + "/warehouse/outside/]")
                .doesNotContain("\"base\"");

        // Step 2: the base moved: the same query there is the same checkpoint, same id.
        Path after = dir.resolve("moved/after");
        Files.createDirectories(after.getParent());
        Files.move(before, after);
        CheckpointLayout there = CheckpointLayout.of(Storage.location(after.toFile()), "latest");
        QueryIdentity moved =
                new QueryIdentity("latest", sources(after), sinks(after, before), List.of());
        assertThat(new IdentityStore(there).claim(moved)).isEqualTo(id);
        assertThat(Files.readString(Storage.localFile(there.metadata(), "a test file").toPath()))
                .isEqualTo(recorded);
    }

    @Test
    void anIdentityThatRecordedItsBaseAndAbsoluteSinksIsReadRelativeToThatBase() throws Exception {
        // Step 1: metadata.json as the version that refused moved bases wrote it.
        Path before = dir.resolve("before");
        CheckpointLayout layout = CheckpointLayout.of(Storage.location(before.toFile()), "latest");
        Files.createDirectories(Storage.localFile(layout.location(), "a test file").toPath());
        String sink = "DeltaSink[" + uri(before) + "warehouse/events_5min/]";
        Files.writeString(
                Storage.localFile(layout.metadata(), "a test file").toPath(),
                "{\"name\":\"latest\",\"sources\":[\"DeltaSource[${base}/warehouse/events_bronze/]\"],"
                    + "\"sinks\":[\""
                        + sink
                        + "\"],\"stateful\":[],\"id\":\"old-id\",\"base\":\""
                        + before
                        + "\",\"layout\":2}");

        // Step 2: the base moved; its query claims the checkpoint with its paths there.
        Path after = dir.resolve("after");
        Files.move(before, after);
        CheckpointLayout there = CheckpointLayout.of(Storage.location(after.toFile()), "latest");
        QueryIdentity now =
                new QueryIdentity(
                        "latest",
                        List.of("DeltaSource[" + uri(after) + "warehouse/events_bronze/]"),
                        List.of("DeltaSink[" + uri(after) + "warehouse/events_5min/]"),
                        List.of());

        assertThat(new IdentityStore(there).claim(now)).isEqualTo("old-id");
        assertThat(Files.readString(Storage.localFile(there.metadata(), "a test file").toPath()))
                .contains("DeltaSink[${base}/warehouse/events_5min/]")
                .doesNotContain("\"base\"")
                .doesNotContain(before.toString());
    }

    /** A folder as {@code Path#toUri} names it when it exists: {@code file:///.../}. */
    private static String uri(Path base) {
        return "file://" + base + "/";
    }

    private static List<String> sources(Path base) {
        return List.of("DeltaSource[" + uri(base) + "warehouse/events_bronze/]");
    }

    /** The sinks at {@code base}; the table outside the base stays where it was ({@code old}). */
    private static List<String> sinks(Path base, Path old) {
        return List.of(
                "DeltaSink[" + uri(base) + "warehouse/events_5min/]",
                "ForeachBatchSink[upsert into events_latest at jdbc:sqlite:"
                        + base
                        + "/warehouse/warehouse.db]",
                "DeltaSink[file:/elsewhere" + old + "/warehouse/outside/]");
    }
}
