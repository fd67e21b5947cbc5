package org.flinkss.runtime.expect;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.table.delta.DataFiles;
import org.flinkss.runtime.table.delta.DeltaConstraints;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Adding constraints to a real local Delta table that holds rows: Delta's refusals (a row that
 * breaks it, named; an expression that is not a condition over the columns) and what is committed
 * when the rows pass. One table, one local Flink job per CHECK.
 */
class TableConstraintsTest {

    private static final RowType ROW =
            RowType.of(
                    new LogicalType[] {new BigIntType(), VarCharType.STRING_TYPE, new DoubleType()},
                    new String[] {"event_id", "event_type", "amount"});

    @TempDir java.nio.file.Path dir;

    private static RowData row(long id, String type, Double amount) {
        return GenericRowData.of(id, type == null ? null : StringData.fromString(type), amount);
    }

    @Test
    void aConstraintIsAddedOnlyWhenEveryRowPassesAndAnExpressionFlinkCannotEvaluateIsRefused()
            throws Exception {
        DeltaTable table = DeltaTable.forPath(dir.resolve("t").toUri().toString());
        table.create(ROW, Map.of());
        table.append(
                "q",
                0,
                List.of(
                        DataFiles.write(
                                new Path(table.path()),
                                ROW,
                                List.of(
                                        row(1, "view", 5.0),
                                        row(2, null, -1.0),
                                        row(3, "buy", 7.5)))));

        assertThatThrownBy(() -> TableConstraints.add(table, "t", "positive", "amount >= 0"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("constraint 'positive' (CHECK (amount >= 0))")
                .hasMessageContaining("{event_id=2, event_type=null, amount=-1.0}")
                .hasMessageContaining("version 1");
        assertThatThrownBy(() -> TableConstraints.add(table, "t", "sum", "amount + 1"))
                .hasMessageContaining("constraint 'sum' on table 't' is not a boolean expression");
        assertThatThrownBy(() -> TableConstraints.add(table, "t", "known", "no_such > 1"))
                .hasMessageContaining("constraint 'known' on table 't' is not a valid expression");
        assertThatThrownBy(() -> TableConstraints.setNotNull(table, "t", "event_type"))
                .hasMessageContaining("column 'event_type' of table 't' is not made NOT NULL")
                .hasMessageContaining("event_id=2");
        assertThat(table.version()).as("nothing refused was committed").isEqualTo(1);

        // NULL breaks a CHECK as in Delta: amount > -5 passes every row, event_type IS NOT NULL
        // would not.
        assertThat(TableConstraints.add(table, "t", "above_minus_five", "amount > -5"))
                .isEqualTo(2);
        assertThat(TableConstraints.setNotNull(table, "t", "event_id")).isEqualTo(3);

        assertThat(table.constraints().checks())
                .containsExactly(Map.entry("above_minus_five", "amount > -5"));
        assertThat(DeltaConstraints.notNullColumns(table.rowType())).containsExactly("event_id");
        assertThat(TableConstraints.rules(table.properties(), table.rowType()))
                .extracting(Expectation::name)
                .containsExactly("above_minus_five", "event_id_not_null");
        assertThat(table.snapshot().count()).isEqualTo(3);
    }
}
