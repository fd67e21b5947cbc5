package org.flinkss.runtime.expect;

import org.apache.flink.streaming.api.operators.StreamMap;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;

import org.junit.jupiter.api.Test;

import org.flinkss.runtime.PermanentFailure;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link NotNullCheck} in Flink's operator harness, on a complete-mode changelog: rows the table
 * will hold are checked, retractions go through, and a null in a {@code NOT NULL} column fails the
 * batch naming the constraint, the table and the row.
 */
class NotNullCheckTest {

    private static final RowType ROW =
            RowType.of(
                    new LogicalType[] {new VarCharType(VarCharType.MAX_LENGTH), new BigIntType()},
                    new String[] {"event_type", "events"});

    private static OneInputStreamOperatorTestHarness<RowData, RowData> harness() throws Exception {
        OneInputStreamOperatorTestHarness<RowData, RowData> harness =
                new OneInputStreamOperatorTestHarness<>(
                        new StreamMap<>(
                                new NotNullCheck("type_totals", ROW, List.of("event_type"))));
        harness.open();
        return harness;
    }

    private static RowData row(RowKind kind, String type, long events) {
        return GenericRowData.ofKind(
                kind, type == null ? null : StringData.fromString(type), events);
    }

    @Test
    void rowsWithTheColumnSetAndRetractionsGoThrough() throws Exception {
        try (OneInputStreamOperatorTestHarness<RowData, RowData> harness = harness()) {
            harness.processElement(new StreamRecord<>(row(RowKind.INSERT, "view", 1)));
            harness.processElement(new StreamRecord<>(row(RowKind.UPDATE_BEFORE, null, 1)));
            harness.processElement(new StreamRecord<>(row(RowKind.UPDATE_AFTER, "view", 2)));
            harness.processElement(new StreamRecord<>(row(RowKind.DELETE, null, 2)));
            assertThat(harness.extractOutputValues())
                    .extracting(RowData::getRowKind)
                    .containsExactly(
                            RowKind.INSERT,
                            RowKind.UPDATE_BEFORE,
                            RowKind.UPDATE_AFTER,
                            RowKind.DELETE);
        }
    }

    @Test
    void aNullInARowTheTableWillHoldFailsTheBatchNamingTheConstraintTheTableAndTheRow()
            throws Exception {
        for (RowKind kind : List.of(RowKind.INSERT, RowKind.UPDATE_AFTER)) {
            try (OneInputStreamOperatorTestHarness<RowData, RowData> harness = harness()) {
                assertThatThrownBy(
                                () ->
                                        harness.processElement(
                                                new StreamRecord<>(row(kind, null, 7))))
                        .as(kind.shortString())
                        .isInstanceOf(PermanentFailure.class)
                        .hasMessageStartingWith(
                                "constraint 'event_type_not_null' (`event_type` IS NOT NULL) of"
                                        + " Delta table 'type_totals' failed for the row"
                                        + " {event_type=null, events=7}: the batch is not"
                                        + " committed");
                assertThat(harness.extractOutputValues()).isEmpty();
            }
        }
    }

    @Test
    void aNotNullColumnTheQueryDoesNotWriteIsRefusedNamingIt() {
        assertThatThrownBy(() -> new NotNullCheck("type_totals", ROW, List.of("user_id")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("NOT NULL column 'user_id', which the query does not write");
    }
}
