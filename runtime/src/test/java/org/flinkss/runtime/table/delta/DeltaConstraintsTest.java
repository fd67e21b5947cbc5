package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.types.logical.RowType;

import com.fasterxml.jackson.databind.JsonNode;
import io.delta.kernel.Operation;
import io.delta.kernel.Table;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.KernelException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.flinkss.runtime.table.delta.TestRows.EVENTS;
import static org.flinkss.runtime.table.delta.TestRows.events;

/**
 * {@code CHECK} and {@code NOT NULL} constraints written as Delta writes them, on a real local
 * table: the commit of each, the protocol, the refusals, and what Delta Kernel 4.0.0 does with the
 * table afterwards (why {@link FeedLog} writes a constrained table's log).
 */
class DeltaConstraintsTest {

    private static final String QUERY = "q-1";

    @TempDir java.nio.file.Path dir;

    private final Engine engine = DeltaStorage.flink().engine();

    private DeltaTable newTable() {
        DeltaTable table = DeltaTable.forPath(dir.resolve("t").toUri().toString());
        table.create(EVENTS, Map.of());
        return table;
    }

    private List<JsonNode> logEntry(long version) throws Exception {
        return DeltaTableTest.logEntry(dir.resolve("t"), version);
    }

    private static JsonNode action(List<JsonNode> actions, String kind) {
        return DeltaTableTest.action(actions, kind);
    }

    private static DataFile write(DeltaTable table, long from, int n) throws Exception {
        return DataFiles.write(new Path(table.path()), EVENTS, events(from, n));
    }

    @Test
    void addIsOneAddConstraintCommitWithThePropertyAndWriterVersionThree() throws Exception {
        DeltaTable table = newTable();

        long version = table.constraints().add("Positive_Amount", "amount >= 0", 0);

        assertThat(version).isEqualTo(1);
        List<JsonNode> entry = logEntry(1);
        JsonNode commitInfo = action(entry, "commitInfo");
        assertThat(commitInfo.get("operation").asText()).isEqualTo("ADD CONSTRAINT");
        assertThat(commitInfo.get("operationParameters").get("name").asText())
                .isEqualTo("positive_amount");
        assertThat(commitInfo.get("operationParameters").get("expr").asText())
                .isEqualTo("amount >= 0");
        // Kernel creates tables at (1, 2); delta-spark's upgrade for checkConstraints is (1, 3).
        JsonNode protocol = action(entry, "protocol");
        assertThat(protocol.get("minReaderVersion").asInt()).isEqualTo(1);
        assertThat(protocol.get("minWriterVersion").asInt()).isEqualTo(3);
        assertThat(
                        action(entry, "metaData")
                                .get("configuration")
                                .get("delta.constraints.positive_amount")
                                .asText())
                .isEqualTo("amount >= 0");
        assertThat(table.constraints().checks())
                .containsExactly(Map.entry("positive_amount", "amount >= 0"));
        assertThat(table.rowType()).isEqualTo(EVENTS);
    }

    @Test
    void kernelRefusesToWriteAConstrainedTableSoFeedLogCommitsItsBatches() throws Exception {
        DeltaTable table = newTable();
        table.constraints().add("positive_amount", "amount >= 0", 0);

        // Kernel 4.0.0: checkConstraints has no write support. When a Kernel upgrade makes this
        // fail, Kernel writes these tables and FeedLog need not.
        assertThatThrownBy(
                        () ->
                                Table.forPath(engine, table.path())
                                        .createTransactionBuilder(engine, "test", Operation.WRITE)
                                        .build(engine))
                .isInstanceOf(KernelException.class)
                .hasMessageContaining("checkConstraints");

        CommitResult first = table.append(QUERY, 0, List.of(write(table, 0, 5)));
        CommitResult replayed = table.append(QUERY, 0, List.of(write(table, 0, 5)));

        assertThat(first.committed()).isTrue();
        assertThat(replayed.committed()).isFalse();
        assertThat(table.version()).isEqualTo(2);
        assertThat(table.snapshot().count()).isEqualTo(5);
        assertThat(table.committedBatch(QUERY)).hasValue(0);
        // The constraint and the protocol stay as the constraint's commit left them.
        assertThat(action(logEntry(2), "protocol")).isNull();
        assertThat(table.constraints().checks()).containsKey("positive_amount");
    }

    @Test
    void dropRemovesThePropertyInADropConstraintCommitAndRefusesAnUnknownName() throws Exception {
        DeltaTable table = newTable();
        table.constraints().add("positive_amount", "amount >= 0", 0);

        assertThatThrownBy(() -> table.constraints().drop("no_such"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no constraint 'no_such'")
                .hasMessageContaining("[positive_amount]");
        assertThat(table.version()).isEqualTo(1);

        long version = table.constraints().drop("POSITIVE_AMOUNT");

        assertThat(version).isEqualTo(2);
        JsonNode commitInfo = action(logEntry(2), "commitInfo");
        assertThat(commitInfo.get("operation").asText()).isEqualTo("DROP CONSTRAINT");
        assertThat(commitInfo.get("operationParameters").get("expr").asText())
                .isEqualTo("amount >= 0");
        assertThat(table.constraints().checks()).isEmpty();
        // Delta keeps the protocol; with no constraint left Kernel writes the table again.
        assertThat(action(logEntry(2), "protocol")).isNull();
        assertThat(table.append(QUERY, 0, List.of(write(table, 0, 3))).committed()).isTrue();
    }

    @Test
    void notNullIsAChangeColumnCommitOfANonNullableColumnThatKernelStillWrites() throws Exception {
        DeltaTable table = newTable();

        long version = table.constraints().setNotNull("event_id", 0);

        assertThat(version).isEqualTo(1);
        List<JsonNode> entry = logEntry(1);
        assertThat(action(entry, "commitInfo").get("operation").asText())
                .isEqualTo("CHANGE COLUMN");
        // Kernel's (1, 2) has the invariants feature already: no protocol action.
        assertThat(action(entry, "protocol")).isNull();
        RowType rowType = table.rowType();
        assertThat(DeltaConstraints.notNullColumns(rowType)).containsExactly("event_id");
        assertThat(DeltaConstraints.writableWith(rowType, EVENTS)).isTrue();
        assertThat(DeltaConstraints.writableWith(EVENTS, rowType)).isTrue();
        // Kernel 4.0.0 writes a table with a non-nullable column (the invariants feature without
        // delta.invariants): it never sees the rows, so the writer checks them.
        assertThat(table.constraints().checks()).isEmpty();
        assertThat(table.append(QUERY, 0, List.of(write(table, 0, 3))).committed()).isTrue();
        assertThat(table.create(EVENTS, Map.of())).isEqualTo(2);
    }

    @Test
    void aConstraintCheckedOnAnOlderVersionIsNotCommitted() {
        DeltaTable table = newTable();
        table.setProperties(Map.of("a", "b"));

        assertThatThrownBy(() -> table.constraints().add("positive_amount", "amount >= 0", 0))
                .isInstanceOf(TableChangedException.class);
        assertThatThrownBy(() -> table.constraints().setNotNull("no_such", 1))
                .hasMessageContaining("no column 'no_such'");
        assertThatThrownBy(() -> table.constraints().add("bad name", "amount >= 0", 1))
                .hasMessageContaining("is not a name");
        table.constraints().add("positive_amount", "amount >= 0", 1);
        assertThatThrownBy(() -> table.constraints().add("positive_amount", "amount > 1", 2))
                .hasMessageContaining("already has the constraint 'positive_amount'");
        assertThat(table.version()).isEqualTo(2);
    }
}
