package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.Path;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.QueryException;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.flinkss.runtime.table.delta.TestRows.EVENTS;
import static org.flinkss.runtime.table.delta.TestRows.events;

/**
 * Each kind of damage to a Delta log is said in one line naming the file and {@code table repair}
 * (it was Kernel's exception, up to 949 lines), and the repair falls back to the last readable
 * version by moving files aside, never deleting one (issue 38 point 6).
 */
class DeltaLogRepairTest {

    private static final String QUERY = "6f1c0a4e-query-bronze";

    @TempDir java.nio.file.Path dir;

    private DeltaTable table;
    private java.nio.file.Path log;

    /** Versions 0 (create) to 12, 10 rows each from version 1, a Delta checkpoint at 10. */
    @BeforeEach
    void twelveBatchesWithACheckpointAtTen() throws Exception {
        table = DeltaTable.forPath(dir.resolve("events_bronze").toString());
        table.create(EVENTS, Map.of());
        for (int batch = 0; batch < 12; batch++) {
            DataFile file =
                    DataFiles.write(new Path(table.path()), EVENTS, events(batch * 10L, 10));
            table.append(QUERY, batch, List.of(file));
        }
        log = dir.resolve("events_bronze/_delta_log");
        assertThat(log.resolve(name(10, "checkpoint.parquet"))).exists();
        assertThat(log.resolve("_last_checkpoint")).exists();
        assertThat(table.snapshot().count()).isEqualTo(120);
    }

    private static String name(long version, String kind) {
        return String.format("%020d.%s", version, kind);
    }

    private static void truncate(java.nio.file.Path file, long size) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(size);
        }
    }

    private long filesIn(java.nio.file.Path folder) throws IOException {
        try (Stream<java.nio.file.Path> s = Files.walk(folder)) {
            return s.filter(Files::isRegularFile).count();
        }
    }

    /** Reading is refused in one line; the repair moves files aside and the table reads again. */
    private void refusedThenRepaired(String file, String what, long version, long rows)
            throws IOException {
        long before = filesIn(dir);
        DeltaTable fresh = DeltaTable.forPath(table.path());
        assertThatThrownBy(fresh::snapshot)
                .isInstanceOf(QueryException.class)
                .hasMessageStartingWith(
                        "the Delta log of table 'events_bronze' is damaged: "
                                + new Path(log.resolve(file).toUri())
                                + " "
                                + what
                                + "; run 'table repair events_bronze' to fall back to version "
                                + version
                                + ", the last readable one")
                .message()
                .doesNotContain("\n");

        DeltaLogRepair.Repaired repaired = DeltaLogRepair.repair(table.path());

        assertThat(repaired.movedTo()).isPresent();
        java.nio.file.Path moved = java.nio.file.Path.of(repaired.movedTo().get().toUri());
        assertThat(moved).isDirectoryContaining(p -> p.getFileName().toString().equals(file));
        assertThat(filesIn(dir)).as("nothing deleted").isEqualTo(before);
        DeltaSnapshot after = DeltaTable.forPath(table.path()).snapshot();
        assertThat(after.version()).isEqualTo(version);
        assertThat(after.count()).isEqualTo(rows);
        // A second repair finds nothing left to do.
        assertThat(DeltaLogRepair.repair(table.path()).damage()).isEmpty();
    }

    @Test
    void aTruncatedCommitFallsBackToTheVersionBeforeIt() throws IOException {
        truncate(log.resolve(name(11, "json")), 50);

        refusedThenRepaired(name(11, "json"), "is not whole JSON at line 1 (truncated?)", 10, 100);
    }

    @Test
    void aMissingCheckpointIsReadFromTheCommits() throws IOException {
        Files.move(log.resolve(name(10, "checkpoint.parquet")), dir.resolve("elsewhere.parquet"));

        refusedThenRepaired(
                "_last_checkpoint",
                "names the checkpoint of version 10, which is missing",
                12,
                120);
    }

    @Test
    void aTruncatedCheckpointIsReadFromTheCommits() throws IOException {
        truncate(log.resolve(name(10, "checkpoint.parquet")), 100);

        refusedThenRepaired(
                name(10, "checkpoint.parquet"),
                "is not a whole Parquet file (truncated?)",
                12,
                120);
    }

    @Test
    void aGarbageLastCheckpointOrChecksumIsReadAroundAndMovedAsideByTheRepair() throws IOException {
        Files.writeString(log.resolve("_last_checkpoint"), "garbage");
        Files.writeString(log.resolve(name(12, "crc")), "garbage");
        // Kernel reads around both (it lists the log instead).
        assertThat(DeltaTable.forPath(table.path()).snapshot().count()).isEqualTo(120);
        DeltaLogDamage damage = DeltaLogDamage.find(table.path()).orElseThrow();
        assertThat(damage.files())
                .extracting(Path::getName)
                .containsExactly("_last_checkpoint", name(12, "crc"));

        DeltaLogRepair.Repaired repaired = DeltaLogRepair.repair(table.path());

        assertThat(repaired.movedTo()).isPresent();
        assertThat(log.resolve("_last_checkpoint")).doesNotExist();
        assertThat(DeltaTable.forPath(table.path()).snapshot().count()).isEqualTo(120);
        assertThat(DeltaLogDamage.find(table.path())).isEmpty();
    }

    @Test
    void aCheckpointWhoseEarlierCommitsWereCleanedUpIsRefusedNamingTheWayOut() throws IOException {
        truncate(log.resolve(name(10, "checkpoint.parquet")), 100);
        Files.move(log.resolve(name(0, "json")), dir.resolve("elsewhere.json"));

        assertThatThrownBy(() -> DeltaLogRepair.repair(table.path()))
                .isInstanceOf(QueryException.class)
                .hasMessageContaining("no readable version is left to fall back to")
                .hasMessageEndingWith("reset the query that writes it to rebuild the table");
        assertThat(log.resolve(name(10, "checkpoint.parquet"))).exists();
    }
}
