package org.flinkss.course.queries;

import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.test.junit5.MiniClusterExtension;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.QueryIdentity;
import org.flinkss.runtime.expect.Expectation;
import org.flinkss.runtime.expect.Expectations;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.TableMode;
import org.flinkss.runtime.table.TableOwner;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.table.delta.HistoryEntry;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code --expect} on bronze, run after run: warn keeps and counts, drop leaves out, counts and
 * writes {@code events_bronze_rejected} with the rule's name, fail stops the batch before it
 * commits (the table's version and the checkpoint's progress as they were) and a rerun without the
 * rule goes on; a rule that is no boolean expression over the table is refused before a run.
 */
class ExpectationsITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path base;

    private RunOptions options(String... rules) {
        return RunOptions.builder()
                .base(Storage.location(base.toFile()))
                .parallelism(2)
                .printProgress(false)
                .expectations(Stream.of(rules).map(Expectation::parse).toList())
                .build();
    }

    @Test
    void warnKeepsDropRejectsFailLeavesTableAndCheckpointAsTheyWere() {
        RunOptions plain = options();
        Warehouse warehouse = new Warehouse(plain.warehouse());
        BronzeQuery bronze = new BronzeQuery(plain.events());
        List<Event> batch1 = EventGenerator.events(0, 500);
        EventFiles.writeBatch(plain.events(), 1, batch1);

        // Step 1: the expected outcome, from the generator. NULL fails a rule, as in Lakeflow.
        long buys = batch1.stream().filter(e -> "buy".equals(e.eventType)).count();
        long notSmall = batch1.stream().filter(e -> e.amount == null || e.amount >= 90).count();

        // Step 2: a rule that does not parse, and one that is not boolean: refused, nothing runs.
        assertThatThrownBy(() -> QueryRunner.run(bronze, options("bad:amount >>= 0:drop")))
                .isInstanceOf(QueryException.class)
                .hasMessageStartingWith(
                        "expectation 'bad' on table 'events_bronze' is not a valid expression"
                                + " over its columns [event_id, user_id, event_type, event_ts,"
                                + " amount]: ");
        assertThatThrownBy(() -> QueryRunner.run(bronze, options("sum:amount + 1:warn")))
                .isInstanceOf(QueryException.class)
                .hasMessage(
                        "expectation 'sum' on table 'events_bronze' is not a boolean expression:"
                                + " 'amount + 1' is DOUBLE; write a condition, e.g. amount >= 0");
        assertThat(warehouse.exists(BronzeQuery.TABLE)).isFalse();

        // Step 3: warn and drop.
        QueryRunner.Result first =
                QueryRunner.run(
                        bronze,
                        options(
                                "known_type:event_type IN ('view', 'click'):drop",
                                "small_amount:amount < 90:warn"));
        assertThat(warehouse.count(BronzeQuery.TABLE)).isEqualTo(500 - buys);
        assertThat(warehouse.sortedValues("events_bronze_rejected"))
                .hasSize((int) buys)
                .allSatisfy(row -> assertThat(row.get(2)).isEqualTo("buy"))
                .allSatisfy(row -> assertThat(row.get(5)).isEqualTo("known_type"))
                .as("the batch that rejected it: the first, id 0")
                .allSatisfy(row -> assertThat(row.get(6)).isEqualTo(0L));
        JsonNode expectations = first.lastProgress.path("expectations");
        assertThat(expectations.toString())
                .isEqualTo(
                        "[{\"table\":\"events_bronze\",\"rule\":\"known_type\",\"action\":\"drop\","
                                + "\"passed\":"
                                + (500 - buys)
                                + ",\"failed\":"
                                + buys
                                + "},{\"table\":\"events_bronze\",\"rule\":\"small_amount\","
                                + "\"action\":\"warn\",\"passed\":"
                                + (500 - notSmall)
                                + ",\"failed\":"
                                + notSmall
                                + "}]");
        assertThat(first.lastProgress.path("sink").path("numOutputRows").asLong())
                .isEqualTo(500 - buys);

        // Step 4: fail. Batch 2 holds ids 500..999; the rule fails on one of them.
        EventFiles.writeBatch(plain.events(), 2, EventGenerator.events(500, 500));
        long version = warehouse.snapshot(BronzeQuery.TABLE).version();
        assertThatThrownBy(() -> QueryRunner.run(bronze, options("early_id:event_id < 700:fail")))
                .hasMessageContaining(
                        "expectation 'early_id' (event_id < 700, action fail) failed on table"
                                + " 'events_bronze' for the row {event_id=")
                .hasMessageContaining("the batch is not committed");
        assertThat(warehouse.snapshot(BronzeQuery.TABLE).version()).isEqualTo(version);
        assertThat(warehouse.count(BronzeQuery.TABLE)).isEqualTo(500 - buys);

        // Step 5: rerun without the rule: batch 2 is read and committed, the rejected table
        // stays wired (nothing dropped now), progress has no expectations.
        QueryRunner.Result rerun = QueryRunner.run(bronze, plain);
        assertThat(rerun.lastProgress.path("batchId").asLong()).isEqualTo(1);
        assertThat(rerun.lastProgress.path("numInputRows").asLong()).isEqualTo(500);
        assertThat(warehouse.count(BronzeQuery.TABLE)).isEqualTo(1000 - buys);
        assertThat(warehouse.count("events_bronze_rejected")).isEqualTo(buys);
        assertThat(rerun.lastProgress.has("expectations")).isFalse();

        // Step 6: batch 3 (ids 1000..1499) with the drop rule again: its buys are rejected with
        // _batch_id 2, next to batch 0's.
        List<Event> batch3 = EventGenerator.events(1000, 500);
        EventFiles.writeBatch(plain.events(), 3, batch3);
        QueryRunner.run(bronze, options("known_type:event_type IN ('view', 'click'):drop"));
        long buys3 = batch3.stream().filter(e -> "buy".equals(e.eventType)).count();
        assertThat(warehouse.sortedValues("events_bronze_rejected"))
                .extracting(row -> row.get(6))
                .containsOnly(0L, 2L)
                .filteredOn(id -> id.equals(2L))
                .hasSize((int) buys3);
    }

    @Test
    void aRejectedTableWithoutTheBatchIdColumnGainsItInACommitOfItsOwn() {
        RunOptions plain = options();
        Warehouse warehouse = new Warehouse(plain.warehouse());
        BronzeQuery bronze = new BronzeQuery(plain.events());
        EventFiles.writeBatch(plain.events(), 1, EventGenerator.events(0, 500));
        QueryRunner.run(bronze, plain);

        // Step 1: events_bronze_rejected as an earlier version of the project made it: the
        // table's columns and _rule, written by this query's checkpoint.
        CheckpointLayout layout = plain.checkpointOf(bronze.name());
        List<RowType.RowField> fields =
                new ArrayList<>(warehouse.rowType(BronzeQuery.TABLE).getFields());
        fields.add(
                new RowType.RowField(
                        Expectations.RULE_COLUMN, new VarCharType(VarCharType.MAX_LENGTH)));
        warehouse.own(
                "events_bronze_rejected",
                new RowType(fields),
                TableOwner.ofCheckpoint(
                        bronze.name(), QueryIdentity.idIn(layout), layout, warehouse),
                TableMode.APPENDED);

        // Step 2: the next run with a drop rule: the table gains _batch_id (nullable) in a
        // commit of its own, which table history marks, and the rows it rejects carry batch 1.
        List<Event> batch2 = EventGenerator.events(500, 500);
        EventFiles.writeBatch(plain.events(), 2, batch2);
        QueryRunner.run(bronze, options("known_type:event_type IN ('view', 'click'):drop"));
        assertThat(warehouse.rowType("events_bronze_rejected").getFieldNames())
                .endsWith(Expectations.RULE_COLUMN, Expectations.BATCH_COLUMN);
        assertThat(warehouse.delta("events_bronze_rejected").history(10))
                .extracting(HistoryEntry::schemaChange)
                .contains("schema: +_batch_id BIGINT");
        long buys = batch2.stream().filter(e -> "buy".equals(e.eventType)).count();
        assertThat(warehouse.sortedValues("events_bronze_rejected"))
                .hasSize((int) buys)
                .allSatisfy(row -> assertThat(row.get(6)).isEqualTo(1L));
    }
}
