package org.flinkss.jobs.recovery;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.jobs.CliOutput;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A checkpoint knows its warehouse (issue 38 point 1): {@code run bronze --warehouse W}, then the
 * same run with the flag forgotten, then with it again used to leave both warehouses' tables naming
 * files of the other. The forgotten flag is refused before anything moves, naming both warehouses
 * and the flag to add; the tables stay exact.
 */
class ForgottenWarehouseITCase {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path dir;

    private static CliOutput ok(String... args) {
        CliOutput o = CliOutput.of(args);
        assertThat(o.code()).as("%s: %s%s", List.of(args), o.out(), o.err()).isZero();
        return o;
    }

    private static CliOutput refused(String... args) {
        CliOutput o = CliOutput.of(args);
        assertThat(o.code()).as("%s: %s%s", List.of(args), o.out(), o.err()).isNotZero();
        return o;
    }

    /** The project's folder (the tests run in the jobs module's). */
    private static Path project() {
        Path here = Path.of("").toAbsolutePath();
        return Files.exists(here.resolve("examples")) ? here : here.getParent();
    }

    /** {@code table count} of a table. */
    private static String count(String base, String warehouse, String table) {
        return ok("table", "count", table, "--base", base, "--warehouse", warehouse).out().strip();
    }

    /** The event ids of {@code table export --csv}, in order (the first column). */
    private static List<Long> exportedIds(String base, String warehouse, String table) {
        String csv =
                ok("table", "export", table, "--csv", "--base", base, "--warehouse", warehouse)
                        .out();
        return csv.lines()
                .skip(1)
                .map(line -> Long.parseLong(line.substring(0, line.indexOf(','))))
                .sorted()
                .toList();
    }

    @Test
    void aForgottenWarehouseIsRefusedBeforeAnythingMovesAndEveryTableStaysExact() throws Exception {
        String base = dir.resolve("fw").toString();
        String warehouse = dir.resolve("fw_wh").toString();
        String defaultWarehouse = dir.resolve("fw").resolve("warehouse").toString();
        List<Long> expected = LongStream.range(0, 1500).boxed().toList();

        // Step 1: the first run, with --warehouse: the checkpoint records it.
        ok("land-events", "--base", base, "--batch", "0", "--start", "0");
        ok("run", "bronze", "--base", base, "--warehouse", warehouse, "--quiet");
        ObjectNode metadata = metadata(base, "bronze");

        // Step 2: the flag forgotten: refused in one line naming both warehouses and the flag.
        ok("land-events", "--base", base, "--batch", "1", "--start", "500");
        CliOutput forgotten = refused("run", "bronze", "--base", base, "--quiet");
        assertThat(forgotten.err())
                .contains("writes to the warehouse " + warehouse)
                .contains("this run's warehouse is " + defaultWarehouse)
                .contains("run it again with --warehouse " + warehouse);
        assertThat(forgotten.err().strip().lines()).hasSize(1);
        assertThat(metadata.path("warehouse").asText()).isEqualTo(warehouse);
        // Nothing moved: no table in the default warehouse, the checkpoint's record unchanged.
        assertThat(Path.of(defaultWarehouse).resolve("events_bronze")).doesNotExist();
        assertThat(metadata(base, "bronze")).isEqualTo(metadata);

        // Step 3: with the flag again: both batches land in the one warehouse, exactly once.
        ok("land-events", "--base", base, "--batch", "2", "--start", "1000");
        ok("run", "bronze", "--base", base, "--warehouse", warehouse, "--quiet");
        assertThat(count(base, warehouse, "events_bronze")).isEqualTo("1500");
        assertThat(exportedIds(base, warehouse, "events_bronze")).isEqualTo(expected);

        // Step 4: a downstream query records the same warehouse, and refuses the forgotten flag
        // with the same message (not "another query": its source is the other warehouse's table).
        ok("run", "win5", "--base", base, "--warehouse", warehouse, "--quiet");
        CliOutput win5 = refused("run", "win5", "--base", base, "--quiet");
        assertThat(win5.err())
                .contains("query 'win5' refused")
                .contains("run it again with --warehouse " + warehouse);
        ok("run", "win5", "--base", base, "--warehouse", warehouse, "--quiet");
        assertThat(count(base, warehouse, "events_5min")).isNotEqualTo("0");
        assertThat(ok("status", "bronze", "--base", base).out())
                .contains("warehouse   " + warehouse);
        assertThat(Path.of(defaultWarehouse)).doesNotExist();
    }

    @Test
    void aResetWithAnotherWarehouseIsRefusedAndAResetKeepsTheWarehouse() throws Exception {
        String base = dir.resolve("rw").toString();
        String warehouse = dir.resolve("rw_wh").toString();
        ok("land-events", "--base", base, "--batch", "0", "--start", "0");
        ok("run", "bronze", "--base", base, "--warehouse", warehouse, "--quiet");

        // Step 1: reset with the flag forgotten: refused, the table in its warehouse untouched.
        CliOutput forgotten = refused("reset", "bronze", "--base", base);
        assertThat(forgotten.err())
                .contains("writes to the warehouse " + warehouse)
                .contains("reset it again with --warehouse " + warehouse);
        assertThat(count(base, warehouse, "events_bronze")).isEqualTo("500");
        assertThat(Path.of(base, "_cp", "bronze", "reset.json")).doesNotExist();

        // Step 2: reset with it empties the table, and the new checkpoint keeps the warehouse:
        // a run with the flag forgotten is still refused, one with it reads everything again.
        ok("reset", "bronze", "--base", base, "--warehouse", warehouse);
        assertThat(count(base, warehouse, "events_bronze")).isEqualTo("0");
        assertThat(metadata(base, "bronze").path("warehouse").asText()).isEqualTo(warehouse);
        refused("run", "bronze", "--base", base, "--quiet");
        ok("run", "bronze", "--base", base, "--warehouse", warehouse, "--quiet");
        assertThat(exportedIds(base, warehouse, "events_bronze"))
                .isEqualTo(LongStream.range(0, 500).boxed().toList());
    }

    @Test
    void aCheckpointMadeBeforeTheRecordKeepsRunningAndIsRecordedThen() throws Exception {
        String base = dir.resolve("old").toString();
        ok("land-events", "--base", base, "--batch", "0", "--start", "0");
        ok("run", "bronze", "--base", base, "--quiet");
        // A checkpoint of an earlier version: its metadata.json has no warehouse.
        Path file = Path.of(base, "_cp", "bronze", "metadata.json");
        ObjectNode metadata = metadata(base, "bronze");
        assertThat(metadata.path("warehouse").asText()).isEqualTo("${base}/warehouse");
        metadata.remove("warehouse");
        Files.writeString(file, JSON.writeValueAsString(metadata));

        ok("land-events", "--base", base, "--batch", "1", "--start", "500");
        ok("run", "bronze", "--base", base, "--quiet");
        assertThat(exportedIds(base, Path.of(base, "warehouse").toString(), "events_bronze"))
                .isEqualTo(LongStream.range(0, 1000).boxed().toList());
        assertThat(metadata(base, "bronze").path("warehouse").asText())
                .isEqualTo("${base}/warehouse");
    }

    @Test
    void thePipelineAndASqlFileWithTheirWarehouseForgottenAreRefused() {
        String base = dir.resolve("pipe").toString();
        String warehouse = dir.resolve("pipe_wh").toString();
        ok("land-events", "--base", base, "--batch", "0", "--start", "0");
        ok("run", "pipeline", "--base", base, "--warehouse", warehouse, "--quiet");
        String silver = count(base, warehouse, "events_silver");

        ok("land-events", "--base", base, "--batch", "1", "--start", "500");
        CliOutput forgotten = refused("run", "pipeline", "--base", base, "--quiet");
        assertThat(forgotten.err())
                .contains("query 'bronze' refused")
                .contains("run it again with --warehouse " + warehouse);
        assertThat(Path.of(base, "warehouse", "events_bronze")).doesNotExist();
        assertThat(count(base, warehouse, "events_bronze")).isEqualTo("500");
        assertThat(count(base, warehouse, "events_silver")).isEqualTo(silver);

        ok("run", "pipeline", "--base", base, "--warehouse", warehouse, "--quiet");
        assertThat(exportedIds(base, warehouse, "events_bronze"))
                .isEqualTo(LongStream.range(0, 1000).boxed().toList());

        // A query of the user's own, from a SQL file, the same way.
        String sql = project().resolve("examples/sql/win5.sql").toString();
        ok("sql", "--file", sql, "--name", "mine", "--base", base, "--warehouse", warehouse);
        assertThat(refused("sql", "--file", sql, "--name", "mine", "--base", base).err())
                .contains("query 'mine' refused")
                .contains("run it again with --warehouse " + warehouse);
    }

    private static ObjectNode metadata(String base, String query) throws Exception {
        return (ObjectNode)
                JSON.readTree(Files.readString(Path.of(base, "_cp", query, "metadata.json")));
    }
}
