package org.flinkss.jobs.cli;

import org.apache.flink.configuration.Configuration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.jobs.Main;
import org.flinkss.jobs.cli.options.Converters;
import org.flinkss.runtime.runner.impl.FlinkConfFile;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.testutils.ProjectScripts;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code --base} and {@code --run-for}, through {@code Main.execute}: a base that does not exist is
 * created only by the commands that land data; a missing base or landing folder, a file given as a
 * base, and a base that cannot be written each get one line saying what to do, not a stack trace
 * and not a silent run over nothing. No Flink here: every case is refused before a job starts.
 */
class BaseOptionTest {

    @TempDir Path dir;

    /** Exit code and stderr of one command line. */
    private record Outcome(int code, String err) {}

    private static Outcome cli(String... args) {
        PrintStream original = System.err;
        PrintStream originalOut = System.out;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            System.setOut(new PrintStream(new ByteArrayOutputStream(), true));
            code = Main.execute(args);
        } finally {
            System.setErr(original);
            System.setOut(originalOut);
        }
        return new Outcome(code, err.toString(StandardCharsets.UTF_8));
    }

    /** A refusal: exit code 1 and one line on stderr, which is returned. */
    private static String refused(String... args) {
        Outcome outcome = cli(args);
        assertThat(outcome.code).as("exit code; stderr: %s", outcome.err).isEqualTo(1);
        assertThat(outcome.err.lines()).as("one line: %s", outcome.err).hasSize(1);
        assertThat(outcome.err).startsWith("error: ");
        return outcome.err.strip();
    }

    @Test
    void runForIsRefusedWithAnAvailableNowRun() throws IOException {
        Path base = Files.createDirectories(dir.resolve("base").resolve("events"));
        assertThat(refused("run", "bronze", "--run-for", "5min", "--base", base.toString()))
                .isEqualTo(
                        "error: --run-for goes with --trigger processing-time=<interval>,"
                                + " real-time or continuous: an available-now run stops by itself"
                                + " once it has processed what is there");
        assertThat(refused("run", "win5", "--trigger", "once", "--run-for", "1min"))
                .startsWith("error: --run-for goes with");
    }

    @Test
    void aBaseThatDoesNotExistIsCreatedByNoCommandButLandEvents() {
        Path base = dir.resolve("typo");
        String b = base.toString();

        assertThat(refused("run", "bronze", "--base", b))
                .isEqualTo(
                        "error: --base "
                                + b
                                + " does not exist: land events there first (land-events --base "
                                + b
                                + " --batch 1 --start 0), or give the --base that holds them");
        assertThat(refused("run", "win5", "--base", b))
                .isEqualTo(
                        "error: --base "
                                + b
                                + " does not exist (only land-events and land-customers create"
                                + " one): give the base the queries ran in, or create the folder"
                                + " first if it is meant to be a new one");
        assertThat(refused("run", "kafka-bronze", "--subscribe", "t", "--base", b))
                .startsWith("error: --base " + b + " does not exist (only land-events");
        assertThat(refused("report", "--base", b))
                .isEqualTo(
                        "error: --base "
                                + b
                                + " does not exist: nothing to report; give the base the queries"
                                + " ran in");
        assertThat(refused("table", "count", "events_bronze", "--base", b))
                .startsWith("error: no table 'events_bronze' in warehouse ");
        assertThat(refused("table", "export", "events_bronze", "--csv", "--base", b))
                .startsWith("error: no table 'events_bronze' in warehouse ");
        assertThat(refused("progress", "bronze", "--base", b))
                .startsWith("error: query 'bronze' has no progress under ");
        assertThat(refused("reset", "bronze", "--base", b))
                .startsWith("error: query 'bronze' has no checkpoint under ");
        assertThat(Files.exists(base)).as("%s created", base).isFalse();
    }

    @Test
    void runOnABaseWithoutALandingFolderSaysSo() throws IOException {
        Path base = Files.createDirectories(dir.resolve("base"));
        String b = base.toString();

        assertThat(refused("run", "bronze", "--base", b))
                .isEqualTo(
                        "error: the landing folder "
                                + base.resolve("events")
                                + " does not exist: land events first (land-events --base "
                                + b
                                + " --batch 1 --start 0), or give the --base that holds them");
        assertThat(refused("run", "pipeline", "--base", b))
                .startsWith("error: the landing folder " + base.resolve("events"));
        try (var entries = Files.list(base)) {
            assertThat(entries).as("nothing created in %s", base).isEmpty();
        }
    }

    @Test
    void aFileGivenAsTheBaseGetsOneLine() throws IOException {
        Path file = Files.writeString(dir.resolve("notes.txt"), "my notes");
        String f = file.toString();
        String expected =
                "error: --base "
                        + f
                        + " is a file, not a folder: give the folder that holds (or is to hold)"
                        + " events/, _cp/ and warehouse/";

        assertThat(refused("land-events", "--batch", "1", "--start", "0", "--base", f))
                .isEqualTo(expected);
        assertThat(refused("land-customers", "--base", f)).isEqualTo(expected);
        assertThat(refused("run", "bronze", "--base", f)).isEqualTo(expected);
        assertThat(refused("run", "win5", "--base", f)).isEqualTo(expected);
        assertThat(refused("report", "--base", f)).isEqualTo(expected);
        assertThat(refused("table", "count", "events_bronze", "--base", f)).isEqualTo(expected);
        assertThat(file).hasContent("my notes");
    }

    @Test
    void aBaseThatCannotBeWrittenGetsOneLine() throws IOException {
        // Root writes through permissions; /sys refuses new files even to root.
        Path locked = Files.createDirectories(dir.resolve("locked"));
        Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("r-xr-xr-x"));
        boolean root = Files.isWritable(locked);
        Path parent = root ? Paths.get("/sys") : locked;
        assumeTrue(Files.isDirectory(parent), "no folder that this user cannot write in");

        Path base = parent.resolve("flinkss-base");
        assertThat(
                        refused(
                                "land-events",
                                "--batch",
                                "1",
                                "--start",
                                "0",
                                "--base",
                                base.toString()))
                .startsWith("error: cannot create --base " + base + " (")
                .endsWith("): give a folder you can write in");
        assertThat(refused("land-customers", "--base", base.toString()))
                .startsWith("error: cannot create --base " + base + " (");
        assertThat(refused("run", "win5", "--base", parent.toString()))
                .startsWith("error: cannot write in --base " + parent + " (")
                .endsWith("): give a folder you can write in");
        Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @Test
    void anObjectStorageBaseIsRefusedInOneLineNotTakenForALocalFolderNamedS3(
            @TempDir Path scratch) {
        for (String[] args :
                new String[][] {
                    {"table", "count", "events_bronze", "--warehouse", "hdfs://nn/w"},
                    {"table", "count", "events_bronze", "--base", "hdfs://nn/w"},
                }) {
            Outcome outcome = cli(args);
            assertThat(outcome.code).as("exit code; stderr: %s", outcome.err).isEqualTo(2);
            assertThat(outcome.err)
                    .contains("is not on the local disk")
                    .contains("give a folder (object storage: docs/object-storage.md)");
        }
        // An S3 base is read as one (every command takes it: RunS3ITCase, CheckpointS3ITCase,
        // with a server); with no server at the configured endpoint, one line says so. The
        // endpoint is a free port, not the configured 127.0.0.1:9000, where a local S3 (scripts/s3,
        // a MinIO) may well answer.
        Configuration configured = FlinkConfFile.locate(null).load(scratch);
        Configuration deadEndpoint = new Configuration(configured);
        String endpoint = "http://127.0.0.1:" + ProjectScripts.freePort();
        deadEndpoint.setString("s3.endpoint", endpoint);
        Outcome table;
        try {
            Storage.initialize(deadEndpoint);
            table = cli("table", "count", "events_bronze", "--base", "s3a://flinkss/x");
        } finally {
            Storage.initialize(configured);
        }
        assertThat(table.code).as("exit code; stderr: %s", table.err).isEqualTo(1);
        assertThat(table.err)
                .contains(
                        "cannot reach S3 at " + endpoint,
                        "s3a://flinkss/x/warehouse",
                        "s3.endpoint")
                .doesNotContain("\tat ");
        assertThat(Paths.get("s3:")).as("no local folder named s3:").doesNotExist();
        assertThat(Paths.get("s3a:")).doesNotExist();
    }

    @Test
    void aFileUriBaseIsItsLocalFolder() {
        assertThat(new Converters.LocalFolder().convert(dir.toUri().toString())).isEqualTo(dir);
        assertThat(new Converters.LocalFolder().convert("data/x")).isEqualTo(Paths.get("data/x"));
        assertThat(new Converters.LocalFolder().convert("C:/data")).isEqualTo(Paths.get("C:/data"));
    }

    @Test
    void tableConvertOfAWarehouseOnAnObjectStoreIsRefusedNamingItBeforeReachingIt()
            throws IOException {
        Path base = Files.createDirectories(dir.resolve("base"));

        // Nothing serves this bucket: the refusal comes before any request.
        String err =
                refused(
                        "table",
                        "convert",
                        "old_table",
                        "--base",
                        base.toString(),
                        "--warehouse",
                        "s3://no-such-bucket/tables");

        assertThat(err)
                .contains("s3://no-such-bucket/tables", "object store", "docs/object-storage.md");
    }
}
