package org.flinkss.jobs.s3;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.jobs.CliOutput;
import org.flinkss.jobs.Main;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.testing.ChildJvm;
import org.flinkss.runtime.testing.RunFreeRows;
import org.flinkss.runtime.testing.S3TestServer;
import org.flinkss.testutils.MiniClusters;
import org.flinkss.testutils.ProjectScripts;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The commands with {@code --warehouse s3://flinkss/<prefix>} (S3Proxy through {@code scripts/s3})
 * and a local base (landing folder, checkpoints): {@code run bronze}, {@code run win5}, a second
 * bronze batch, {@code table count|show|history}, {@code reset bronze}, {@code land-customers} and
 * the stream-static join {@code run enriched} work on the S3 tables, and the tables hold exactly
 * the rows of the same runs with a local warehouse.
 */
@Tag("ports")
class WarehouseS3CliITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @RegisterExtension
    static final S3TestServer.PerClass S3 = new S3TestServer.PerClass("warehouse-s3-cli-it");

    @TempDir java.nio.file.Path dir;

    private static CliOutput cli(String... args) {
        return CliOutput.of(args);
    }

    private static CliOutput ok(java.nio.file.Path base, String warehouse, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--base", base.toString(), "--warehouse", warehouse));
        CliOutput o = cli(all.toArray(String[]::new));
        assertThat(o.code()).as("%s: %s%s", all, o.out(), o.err()).isZero();
        return o;
    }

    private static long count(CliOutput o) {
        return Long.parseLong(o.out().trim().replaceAll("(?s).*?(\\d+)\\s*$", "$1"));
    }

    @Test
    void bronzeAndWin5OnAnS3WarehouseEqualTheSameRunsOnALocalOne() throws Exception {
        String remote = S3.server().freshPrefix("cli").toString();
        java.nio.file.Path remoteBase = dir.resolve("remote-base");
        java.nio.file.Path localBase = dir.resolve("local-base");
        String local = dir.resolve("local-warehouse").toString();

        // Step 1: the same runs on both: 500 events, bronze, win5; 500 more, bronze again; the
        // customers table and the stream-static join.
        for (var run : List.of(List.of(remoteBase, remote), List.of(localBase, local))) {
            java.nio.file.Path base = (java.nio.file.Path) run.get(0);
            String warehouse = (String) run.get(1);
            ok(base, warehouse, "land-events", "--batch", "1", "--start", "0");
            ok(base, warehouse, "run", "bronze", "--quiet");
            ok(base, warehouse, "run", "win5", "--quiet");
            ok(base, warehouse, "land-events", "--batch", "2", "--start", "500");
            ok(base, warehouse, "run", "bronze", "--quiet");
            // The stream-static join reads its static customers table from the warehouse, in
            // the join's tasks.
            ok(base, warehouse, "land-customers");
            ok(base, warehouse, "run", "enriched", "--quiet");
        }

        // Step 2: the S3 tables are under the prefix, nothing of them in the local base.
        Warehouse onS3 = new Warehouse(Storage.location(remote));
        Warehouse onDisk = new Warehouse(Storage.location(java.nio.file.Path.of(local).toFile()));
        assertThat(onS3.tables())
                .contains(
                        "events_5min",
                        "events_5min_late",
                        "events_bronze",
                        "customers",
                        "events_enriched")
                .isEqualTo(onDisk.tables());
        assertThat(remoteBase.resolve("warehouse/events_bronze")).doesNotExist();
        assertThat(Storage.exists(Storage.location(remote + "/events_bronze/_delta_log"))).isTrue();
        for (String table : onDisk.tables()) {
            assertThat(RunFreeRows.of(onS3, table))
                    .as(table)
                    .isEqualTo(RunFreeRows.of(onDisk, table));
        }
        assertThat(onS3.count("events_bronze")).isEqualTo(1000);
        assertThat(onS3.sortedValues("events_enriched"))
                .as("every bronze row, some joined with a customer's country")
                .hasSize(1000)
                .anyMatch(row -> row.get(5) != null);

        // Step 3: the table commands read the S3 warehouse.
        assertThat(count(ok(remoteBase, remote, "table", "count", "events_bronze")))
                .isEqualTo(1000);
        assertThat(ok(remoteBase, remote, "table", "show", "events_5min").out())
                .isEqualTo(ok(localBase, local, "table", "show", "events_5min").out());
        assertThat(ok(remoteBase, remote, "table", "export", "events_5min", "--csv").out().lines())
                .hasSize(1 + (int) onDisk.count("events_5min"))
                .containsExactlyInAnyOrderElementsOf(
                        ok(localBase, local, "table", "export", "events_5min", "--csv")
                                .out()
                                .lines()
                                .toList());
        assertThat(ok(remoteBase, remote, "table", "history", "events_bronze").out())
                .contains("STREAMING UPDATE", "CREATE TABLE");

        // Step 4: reset empties the S3 table; the next run writes it again, whole.
        ok(remoteBase, remote, "reset", "bronze");
        assertThat(count(ok(remoteBase, remote, "table", "count", "events_bronze"))).isZero();
        ok(remoteBase, remote, "run", "bronze", "--quiet");
        assertThat(onS3.sortedValues("events_bronze"))
                .isEqualTo(onDisk.sortedValues("events_bronze"));
        assertThat(Files.exists(remoteBase.resolve("_cp/bronze"))).isTrue();

        // Step 4b: the checkpoint knows its S3 warehouse (issue 38 point 1): the flag forgotten,
        // the run is refused before anything moves, naming the URI to give.
        CliOutput forgotten = cli("run", "bronze", "--base", remoteBase.toString(), "--quiet");
        assertThat(forgotten.code()).as(forgotten.err()).isNotZero();
        assertThat(forgotten.err())
                .contains("writes to the warehouse " + remote + ",")
                .contains("run it again with --warehouse " + remote + ",");
        assertThat(remoteBase.resolve("warehouse/events_bronze")).doesNotExist();

        // Step 5: what needs a local warehouse says so in one line, naming the S3 one.
        for (String[] args : new String[][] {{"table", "convert", "no_such_table"}}) {
            List<String> all = new ArrayList<>(List.of(args));
            all.addAll(List.of("--base", remoteBase.toString(), "--warehouse", remote));
            CliOutput refused = cli(all.toArray(String[]::new));
            assertThat(refused.code()).as("%s: %s", all, refused.err()).isNotZero();
            assertThat(refused.err())
                    .as("%s", all)
                    .startsWith("error: ")
                    .contains(remote, "object store", "docs/object-storage.md")
                    .doesNotContain("\tat ");
        }
    }

    /**
     * A command in a fresh process initializes the file systems itself, from the {@code s3.*} keys
     * of the Flink configuration it finds ({@code ./flink-conf/config.yaml} in its working
     * directory), and never prints the secret key.
     */
    @Test
    void aFreshProcessReachesS3WithTheKeysOfItsFlinkConfiguration() throws Exception {
        String remote = S3.server().freshPrefix("child").toString();
        java.nio.file.Path base = dir.resolve("base");
        java.nio.file.Path work = dir.resolve("child");
        String conf =
                Files.readString(ProjectScripts.ROOT.resolve("flink-conf/config.yaml"))
                        .replaceAll(
                                "(?m)^s3\\.endpoint:.*$", "s3.endpoint: " + S3.server().endpoint());
        assertThat(conf).contains("s3.endpoint: " + S3.server().endpoint());
        Files.createDirectories(work.resolve("flink-conf"));
        Files.writeString(work.resolve("flink-conf/config.yaml"), conf);
        ok(base, remote, "land-events", "--batch", "1", "--start", "0");

        ChildJvm child =
                ChildJvm.of(Main.class)
                        .workDir(work)
                        .output(dir.resolve("child.log"))
                        .start("run", "bronze", "--base", base.toString(), "--warehouse", remote);
        assertThat(child.waitFor(java.time.Duration.ofMinutes(3)))
                .as("child output: %s", child.outputText())
                .isZero();
        assertThat(child.outputText())
                .doesNotContain(S3TestServer.SECRET_KEY)
                .as("the AWS SDK's notice that it has no mime.types file")
                .doesNotContain("mime.types");
        assertThat(new Warehouse(Storage.location(remote)).count("events_bronze")).isEqualTo(500);
    }

    /**
     * Bronze killed with SIGKILL twice after a batch of its own committed to the S3 warehouse, then
     * rerun: the S3 table holds the rows of one uninterrupted local run, each event once, and a
     * further run finds nothing new (Delta replay of committed batches on S3).
     */
    @Test
    void bronzeKilledTwiceMidRunOnS3EndsWithTheRowsOfOneUninterruptedRun() throws Exception {
        String remote = S3.server().freshPrefix("kill").toString();
        java.nio.file.Path base = dir.resolve("kill-base");
        java.nio.file.Path localBase = dir.resolve("kill-local-base");
        String local = dir.resolve("kill-local-warehouse").toString();
        java.nio.file.Path work = dir.resolve("kill-child");
        String conf =
                Files.readString(ProjectScripts.ROOT.resolve("flink-conf/config.yaml"))
                        .replaceAll(
                                "(?m)^s3\\.endpoint:.*$", "s3.endpoint: " + S3.server().endpoint());
        Files.createDirectories(work.resolve("flink-conf"));
        Files.writeString(work.resolve("flink-conf/config.yaml"), conf);
        for (int file = 0; file < 8; file++) {
            for (java.nio.file.Path b : List.of(base, localBase)) {
                ok(b, local, "land-events", "--batch", "" + (file + 1), "--start", "" + file * 500);
            }
        }
        ok(localBase, local, "run", "bronze", "--quiet");
        Warehouse onDisk = new Warehouse(Storage.location(java.nio.file.Path.of(local).toFile()));
        List<List<Object>> expected = onDisk.sortedValues("events_bronze");
        assertThat(expected).hasSize(4000);

        String[] run = {
            "run",
            "bronze",
            "--base",
            base.toString(),
            "--warehouse",
            remote,
            "--max-files-per-trigger",
            "2",
            "--checkpoint-interval",
            "300ms",
            "--quiet"
        };
        Warehouse onS3 = new Warehouse(Storage.location(remote));
        List<java.nio.file.Path> outputs = new ArrayList<>();
        int kills =
                ChildJvm.runKilledAfterCommits(
                        ChildJvm.of(Main.class).workDir(work).tmpDir(dir.resolve("kill-tmp")),
                        run,
                        org.flinkss.runtime.checkpoint.CheckpointLayout.of(
                                Storage.location(base.toFile()), "bronze"),
                        2,
                        new java.util.Random(16),
                        400,
                        // Per run, as RunS3ITCase's: S3 children are slow on a loaded machine.
                        java.time.Duration.ofMinutes(4),
                        dir.resolve("kill-logs"),
                        outputs,
                        note -> System.out.println("[s3 kill] " + note),
                        () -> onS3.count("events_bronze") + " rows visible on S3");
        assertThat(kills).as("kills that hit a running process").isPositive();
        assertThat(onS3.sortedValues("events_bronze")).containsExactlyElementsOf(expected);

        ok(base, remote, "run", "bronze", "--quiet");
        assertThat(onS3.sortedValues("events_bronze")).containsExactlyElementsOf(expected);
    }
}
