package org.flinkss.jobs.queries;

import org.apache.flink.test.junit5.MiniClusterExtension;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.queries.LatestQuery;
import org.flinkss.jobs.CliOutput;
import org.flinkss.runtime.sink.jdbc.Database;
import org.flinkss.runtime.sink.jdbc.SqlTableOwners;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 14, point 4, for the tables of the SQL database: two bases that share one (the SQLite file
 * of a shared {@code --warehouse}, or one {@code --jdbc-url}) do not share a table. The second
 * writer of {@code events_latest} (foreachBatch upsert) or of an update-mode {@code events_5min} is
 * refused before any data moves, naming both checkpoints; {@code reset} in the refused base empties
 * nothing of the owner's, and the owner's reset hands the table to its new checkpoint.
 */
class SharedDatabaseITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    private static EmbeddedPostgres postgres;

    @TempDir Path dir;

    @AfterAll
    static void stopPostgres() throws Exception {
        if (postgres != null) {
            postgres.close();
        }
    }

    private static CliOutput ok(List<String> args) {
        CliOutput o = CliOutput.of(args.toArray(String[]::new));
        assertThat(o.code()).as("%s: %s%s", args, o.out(), o.err()).isZero();
        return o;
    }

    private static CliOutput refused(List<String> args) {
        CliOutput o = CliOutput.of(args.toArray(String[]::new));
        assertThat(o.code()).as("%s: %s%s", args, o.out(), o.err()).isNotZero();
        return o;
    }

    /** {@code command} with {@code base}'s options after it. */
    private static List<String> in(List<String> base, String... command) {
        List<String> all = new ArrayList<>(List.of(command));
        all.addAll(base);
        return all;
    }

    /** The refusal: one line that names the table, both checkpoints and what to do. */
    private static void assertRefused(CliOutput o, String table, Path owner, Path refused) {
        assertThat(o.err())
                .contains(
                        "table '" + table + "'",
                        "is written by",
                        owner.resolve("_cp").toString(),
                        "cannot write it",
                        refused.resolve("_cp").toString(),
                        "Give each its own --warehouse or --jdbc-url",
                        "DROP TABLE " + table);
        assertThat(o.err().strip().lines())
                .as("one line, no stack trace: %s", o.err())
                .filteredOn(l -> l.contains(table))
                .hasSize(1);
        assertThat(o.err()).doesNotContain("\tat ");
    }

    @Test
    void twoBasesSharingOneWarehouseDoNotShareItsSqliteTable() throws Exception {
        Path warehouse = dir.resolve("shared-warehouse");
        Path a = dir.resolve("a");
        Path b = dir.resolve("b");
        List<String> inA = List.of("--base", a.toString(), "--warehouse", warehouse.toString());
        List<String> inB = List.of("--base", b.toString(), "--warehouse", warehouse.toString());
        Database db = Database.sqliteIn(warehouse);

        // Step 1: base a lands 500 events, runs bronze and latest into <warehouse>/warehouse.db
        // (given as --jdbc-url: without it latest MERGEs into the Delta table).
        ok(in(inA, "land-events", "--batch", "1", "--start", "0"));
        ok(in(inA, "run", "bronze", "--quiet"));
        ok(in(inA, "run", "latest", "--quiet", "--jdbc-url", db.describe()));
        List<List<Object>> aRows = db.rows(LatestQuery.TABLE);
        assertThat(aRows).hasSize(500);

        // Step 2: a database made before the claims (no _flinkss_tables): a's next run claims it
        // (step 3 is refused by that claim).
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.executeUpdate("DROP TABLE IF EXISTS " + SqlTableOwners.TABLE);
        }
        ok(in(inA, "run", "latest", "--quiet", "--jdbc-url", db.describe()));

        // Step 3: base b, on the same warehouse, would upsert into a's events_latest: refused.
        ok(in(inB, "land-events", "--batch", "1", "--start", "1000"));
        CliOutput second =
                refused(in(inB, "run", "latest", "--quiet", "--jdbc-url", db.describe()));
        assertRefused(second, LatestQuery.TABLE, a, b);
        assertThat(db.rows(LatestQuery.TABLE)).isEqualTo(aRows);

        // Step 4: b's reset leaves a's table alone; it empties nothing.
        CliOutput bReset = ok(in(inB, "reset", "latest"));
        assertThat(bReset.out()).doesNotContain("tables emptied");
        assertThat(db.rows(LatestQuery.TABLE)).isEqualTo(aRows);

        // Step 5: a's reset empties it and keeps it a's: the next run of a reprocesses, b is
        // still refused.
        assertThat(ok(in(inA, "reset", "latest")).out()).contains("tables emptied: events_latest");
        assertThat(db.count(LatestQuery.TABLE)).isZero();
        ok(in(inA, "run", "latest", "--quiet", "--jdbc-url", db.describe()));
        assertThat(db.rows(LatestQuery.TABLE)).isEqualTo(aRows);
        assertRefused(
                refused(in(inB, "run", "latest", "--quiet", "--jdbc-url", db.describe())),
                LatestQuery.TABLE,
                a,
                b);
        assertThat(db.rows(LatestQuery.TABLE)).isEqualTo(aRows);
    }

    @Test
    void twoBasesSharingOneJdbcUrlDoNotShareAnUpsertOrAnUpdateModeTable() throws Exception {
        if (postgres == null) {
            postgres = EmbeddedPostgres.builder().start();
        }
        try (Connection c = postgres.getPostgresDatabase().getConnection();
                Statement s = c.createStatement()) {
            s.executeUpdate("CREATE DATABASE shared");
        }
        String url = "jdbc:postgresql://localhost:" + postgres.getPort() + "/shared?user=postgres";
        Database db = new Database(url);
        Path a = dir.resolve("a");
        Path b = dir.resolve("b");
        // Each base has its own warehouse (its Delta tables); only the database is shared.
        List<String> inA = List.of("--base", a.toString(), "--jdbc-url", url);
        List<String> inB = List.of("--base", b.toString(), "--jdbc-url", url);
        // Landing and bronze never use the database: they refuse --jdbc-url.
        List<String> baseA = List.of("--base", a.toString());
        List<String> baseB = List.of("--base", b.toString());

        // Step 1: base a runs bronze, latest and win5 in update mode into PostgreSQL.
        ok(in(baseA, "land-events", "--batch", "1", "--start", "0"));
        ok(in(baseA, "run", "bronze", "--quiet"));
        ok(in(inA, "run", "latest", "--quiet"));
        ok(in(inA, "run", "win5", "--output-mode", "update", "--quiet"));
        List<List<Object>> latest = db.rows(LatestQuery.TABLE);
        List<List<Object>> windows = db.rows("events_5min");
        assertThat(latest).hasSize(500);
        assertThat(windows).isNotEmpty();

        // Step 2: base b's writers of the same two tables are refused, naming both checkpoints.
        ok(in(baseB, "land-events", "--batch", "1", "--start", "1000"));
        ok(in(baseB, "run", "bronze", "--quiet"));
        assertRefused(refused(in(inB, "run", "latest", "--quiet")), LatestQuery.TABLE, a, b);
        assertRefused(
                refused(in(inB, "run", "win5", "--output-mode", "update", "--quiet")),
                "events_5min",
                a,
                b);
        assertThat(db.rows(LatestQuery.TABLE)).isEqualTo(latest);
        assertThat(db.rows("events_5min")).isEqualTo(windows);

        // Step 3: b's resets leave a's rows where they are.
        ok(in(inB, "reset", "latest"));
        ok(in(inB, "reset", "win5"));
        assertThat(db.rows(LatestQuery.TABLE)).isEqualTo(latest);
        assertThat(db.rows("events_5min")).isEqualTo(windows);

        // Step 4: a's resets empty both; a's runs reprocess them to the same rows.
        assertThat(ok(in(inA, "reset", "latest")).out()).contains("events_latest");
        assertThat(ok(in(inA, "reset", "win5")).out()).contains("events_5min");
        assertThat(db.count(LatestQuery.TABLE)).isZero();
        assertThat(db.count("events_5min")).isZero();
        ok(in(inA, "run", "latest", "--quiet"));
        ok(in(inA, "run", "win5", "--output-mode", "update", "--quiet"));
        assertThat(db.rows(LatestQuery.TABLE)).isEqualTo(latest);
        assertThat(db.rows("events_5min")).isEqualTo(windows);
    }

    @Test
    void aCopiedBaseSharingTheOriginalsDatabaseIsRefusedAsACopy() throws Exception {
        Path warehouse = dir.resolve("shared-warehouse");
        Path original = dir.resolve("original");
        Path copy = dir.resolve("copy");
        List<String> inOriginal =
                List.of("--base", original.toString(), "--warehouse", warehouse.toString());
        List<String> inCopy =
                List.of("--base", copy.toString(), "--warehouse", warehouse.toString());
        Database db = Database.sqliteIn(warehouse);

        // Step 1: the original runs bronze and latest; then cp -a of the base (same query ids).
        ok(in(inOriginal, "land-events", "--batch", "1", "--start", "0"));
        ok(in(inOriginal, "run", "bronze", "--quiet"));
        ok(in(inOriginal, "run", "latest", "--quiet", "--jdbc-url", db.describe()));
        List<List<Object>> rows = db.rows(LatestQuery.TABLE);
        Process cp =
                new ProcessBuilder("cp", "-a", original.toString(), copy.toString())
                        .inheritIO()
                        .start();
        assertThat(cp.waitFor()).isZero();

        // Step 2: the copy's run and reset would write or empty the original's table: refused.
        CliOutput run =
                refused(in(inCopy, "run", "latest", "--quiet", "--jdbc-url", db.describe()));
        assertThat(run.err())
                .contains("is a copy of that checkpoint", original.resolve("_cp").toString())
                .contains(copy.resolve("_cp").toString());
        CliOutput reset = refused(in(inCopy, "reset", "latest"));
        assertThat(reset.err()).contains("is a copy of that checkpoint", "nothing was deleted");
        assertThat(db.rows(LatestQuery.TABLE)).isEqualTo(rows);
        assertThat(copy.resolve("_cp/latest/metadata.json")).exists();
    }
}
