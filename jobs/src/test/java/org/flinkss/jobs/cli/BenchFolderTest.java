package org.flinkss.jobs.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.jobs.Main;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code bench} deletes only what it wrote, in a folder it made; it refuses any other folder. */
class BenchFolderTest {

    @TempDir Path dir;

    /** Runs a bench of 10 events that must be refused: stderr, after checking the exit code. */
    private static String refused(Path base) {
        PrintStream original = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            code = Main.execute("bench", "bronze", "--events", "10", "--base", base.toString());
        } finally {
            System.setErr(original);
        }
        String text = err.toString(StandardCharsets.UTF_8);
        assertThat(code).as("exit code; stderr: %s", text).isEqualTo(1);
        assertThat(text.lines()).as("one line: %s", text).hasSize(1);
        return text;
    }

    @Test
    void aFolderWithTheUsersFilesIsRefusedAndKeptWhole() throws IOException {
        Path base = Files.createDirectories(dir.resolve("mine"));
        Files.writeString(base.resolve("notes.txt"), "my notes");

        assertThat(refused(base))
                .isEqualTo(
                        "error: bench's folder "
                                + base
                                + " is not empty and bench did not make it (it holds notes.txt):"
                                + " bench empties its folder before each run, so it takes only a"
                                + " new or empty folder, or one it made; give another --base\n");
        assertThat(base.resolve("notes.txt")).hasContent("my notes");
    }

    @Test
    void aRealBaseIsNotABenchFolder() throws IOException {
        // A base of the other commands holds exactly what a bench writes, but bench did not make
        // it: its checkpoints and tables are somebody's work.
        Path base = dir.resolve("data");
        Files.createDirectories(base.resolve("events/batch_1"));
        Files.createDirectories(base.resolve("_cp/bronze"));
        Files.createDirectories(base.resolve("warehouse/events_bronze"));

        assertThat(refused(base)).contains("it holds _cp, events, warehouse");
        assertThat(base.resolve("_cp/bronze")).isDirectory();
        assertThat(base.resolve("warehouse/events_bronze")).isDirectory();
    }

    @Test
    void aFileIsNotAFolder() throws IOException {
        Path file = Files.writeString(dir.resolve("notes.txt"), "my notes");

        assertThat(refused(file)).contains("bench's --base " + file + " is a file");
        assertThat(file).hasContent("my notes");
    }

    @Test
    void inItsOwnFolderBenchEmptiesWhatItWroteAndRefusesWhatItDidNot() throws IOException {
        // Step 1: a new folder becomes bench's, marked.
        Path base = dir.resolve("bench");
        BenchFolder.prepare(base);
        assertThat(base.resolve(BenchFolder.MARK)).isRegularFile();

        // Step 2: a previous bench's files are deleted before the next run.
        Files.createDirectories(base.resolve("events/batch_1"));
        Files.createDirectories(base.resolve("_cp/bronze"));
        Files.createDirectories(base.resolve("warehouse/events_bronze"));
        BenchFolder.prepare(base);
        try (var entries = Files.list(base)) {
            assertThat(entries).containsExactly(base.resolve(BenchFolder.MARK));
        }

        // Step 3: a file the user put there since is not bench's: refused, nothing deleted.
        Files.createDirectories(base.resolve("_cp/bronze"));
        Files.writeString(base.resolve("notes.txt"), "my notes");
        assertThat(refused(base))
                .contains(
                        base
                                + " holds notes.txt, which bench did not write: move it away or"
                                + " give another --base");
        assertThat(base.resolve("notes.txt")).hasContent("my notes");
        assertThat(base.resolve("_cp/bronze")).isDirectory();
    }
}
