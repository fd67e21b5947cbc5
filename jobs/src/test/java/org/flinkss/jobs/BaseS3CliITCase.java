package org.flinkss.jobs;

import org.apache.flink.core.fs.Path;
import org.apache.flink.test.junit5.MiniClusterExtension;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.CheckpointLock;
import org.flinkss.runtime.checkpoint.JsonFiles;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code --base s3://flinkss/<prefix>} (S3Proxy): {@code progress}, {@code report} and {@code
 * reset} read and write a query's checkpoint on S3 (its identity, progress and lease) and its
 * tables in {@code <base>/warehouse} on S3; a run there is refused for now, in one line that says
 * what works.
 *
 * <p>The checkpoint on S3 is a real run's: bronze runs with a local base and its tables in the S3
 * base's warehouse, then its identity and progress are copied to {@code <s3 base>/_cp/bronze}.
 */
@Tag("ports")
class BaseS3CliITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @RegisterExtension
    static final S3TestServer.PerClass S3 = new S3TestServer.PerClass("base-s3-cli-it");

    @TempDir java.nio.file.Path dir;

    record Output(int code, String out, String err) {}

    private static synchronized Output cli(String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int code;
        try {
            System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
            code = Main.execute(args);
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        return new Output(
                code, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    }

    private static Output ok(String... args) {
        Output o = cli(args);
        assertThat(o.code()).as("%s: %s%s", List.of(args), o.out(), o.err()).isZero();
        return o;
    }

    private static Output refused(String... args) {
        Output o = cli(args);
        assertThat(o.code()).as("%s: %s", List.of(args), o.out()).isNotZero();
        assertThat(o.err()).as("%s", List.of(args)).startsWith("error: ").doesNotContain("\tat ");
        return o;
    }

    @Test
    void progressReportAndResetWorkOnACheckpointOnS3() throws Exception {
        Path base = S3.server().freshPrefix("base");
        String warehouse = base + "/warehouse";
        java.nio.file.Path local = dir.resolve("local-base");
        ok("land-events", "--batch", "1", "--start", "0", "--base", local.toString());
        ok("run", "bronze", "--quiet", "--base", local.toString(), "--warehouse", warehouse);

        // The run's checkpoint identity and progress, moved to the S3 base.
        CheckpointLayout onS3 = CheckpointLayout.of(base, "bronze");
        CheckpointLayout onDisk = CheckpointLayout.of(local, "bronze");
        for (String file : List.of("metadata.json", "progress/log.jsonl", "progress/last.json")) {
            Storage.replace(
                    new Path(onS3.location(), file),
                    Files.readAllBytes(onDisk.dir().resolve(file)));
        }
        String queryId = JsonFiles.readTree(onS3.metadataLocation()).path("id").asText();
        Warehouse tables = new Warehouse(Storage.location(warehouse));
        assertThat(tables.count("events_bronze")).isEqualTo(500);

        // progress and report read the S3 checkpoint.
        JsonNode last =
                JsonFiles.JSON.readTree(ok("progress", "bronze", "--base", base.toString()).out());
        assertThat(last.path("id").asText()).isEqualTo(queryId);
        assertThat(last.path("numInputRows").asLong()).isEqualTo(500);
        java.nio.file.Path report = dir.resolve("report.html");
        ok("report", "--base", base.toString(), "--out", report.toString());
        assertThat(Files.readString(report)).contains("<h3>bronze</h3>", base.toString());
        ok("report", "--base", base.toString());
        assertThat(Storage.readText(new Path(base, "report.html"))).contains("<h3>bronze</h3>");

        // reset waits for a run that holds the checkpoint's lease, naming it.
        try (CheckpointLock run =
                CheckpointLock.acquire(onS3, "bronze", "other-run", Duration.ofMinutes(1))) {
            assertThat(refused("reset", "bronze", "--base", base.toString()).err())
                    .contains("query 'bronze' is already running", "run other-run of pid");
        }

        // reset: the checkpoint starts over (a new id, no progress), the S3 table is emptied.
        assertThat(ok("reset", "bronze", "--base", base.toString()).out())
                .contains("bronze: checkpoint deleted, tables emptied: events_bronze");
        assertThat(tables.count("events_bronze")).isZero();
        JsonNode renewed = JsonFiles.readTree(onS3.metadataLocation());
        assertThat(renewed.path("id").asText()).isNotEmpty().isNotEqualTo(queryId);
        assertThat(Storage.exists(onS3.progressLogLocation())).isFalse();
        assertThat(tables.owner("events_bronze").queryId()).isEqualTo(renewed.path("id").asText());
        assertThat(tables.owner("events_bronze").checkpoint())
                .isEqualTo(onS3.location().toString());
        // The local checkpoint is not touched.
        assertThat(onDisk.metadata()).exists();

        // A run on an S3 base is refused for now, saying what works; a command that needs a
        // local base says so.
        assertThat(refused("run", "win5", "--quiet", "--base", base.toString()).err())
                .contains(base.toString(), "not supported yet", "docs/object-storage.md");
        assertThat(refused("table", "count", "events_bronze", "--base", base.toString()).err())
                .contains("needs --base on a local disk");
        assertThat(refused("report", "--base", S3.server().freshPrefix("empty").toString()).err())
                .contains("holds nothing");
    }
}
