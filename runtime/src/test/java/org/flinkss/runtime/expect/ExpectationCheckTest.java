package org.flinkss.runtime.expect;

import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.RowType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.PermanentFailure;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.progress.Fragment;
import org.flinkss.runtime.progress.Fragments;
import org.flinkss.runtime.progress.RunScope;
import org.flinkss.runtime.storage.Storage;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link ExpectationCheck} in Flink's operator harness, on rows that carry the verdict of each rule
 * after their columns (as the Table API's projection hands them): what goes on, what is rejected
 * with which rules, what fails the batch, and the counts a snapshot leaves for progress.
 */
class ExpectationCheckTest {

    private static final RowType ROW =
            RowType.of(
                    new org.apache.flink.table.types.logical.LogicalType[] {
                        new BigIntType(), new DoubleType()
                    },
                    new String[] {"event_id", "amount"});

    private static final Expectation WARN = Expectation.parse("known_id:event_id < 100:warn");
    private static final Expectation DROP = Expectation.parse("positive_amount:amount >= 0:drop");
    private static final Expectation FAIL = Expectation.parse("small_amount:amount < 1000:fail");

    @TempDir Path base;

    private RunScope scope() {
        return new RunScope(CheckpointLayout.of(Storage.location(base.toFile()), "q"), "run-1");
    }

    private OneInputStreamOperatorTestHarness<RowData, RowData> harness(List<Expectation> rules)
            throws Exception {
        return harness(rules, false);
    }

    private OneInputStreamOperatorTestHarness<RowData, RowData> harness(
            List<Expectation> rules, boolean constraints) throws Exception {
        var h =
                new OneInputStreamOperatorTestHarness<>(
                        new ProcessOperator<>(
                                new ExpectationCheck(
                                        "events",
                                        ROW,
                                        rules,
                                        Expectations.REJECTED,
                                        scope(),
                                        constraints)));
        h.open();
        return h;
    }

    /** A row and the verdict of each rule: TRUE passes; FALSE and NULL both arrive as false. */
    private static RowData checked(long id, Double amount, boolean... verdicts) {
        GenericRowData row = new GenericRowData(2 + verdicts.length);
        row.setField(0, id);
        row.setField(1, amount);
        for (int i = 0; i < verdicts.length; i++) {
            row.setField(2 + i, verdicts[i]);
        }
        return row;
    }

    @Test
    void warnKeepsAndCountsDropRejectsWithTheRulesNameAndSnapshotsLeaveTheCounts()
            throws Exception {
        var h = harness(List.of(WARN, DROP));

        h.processElement(new StreamRecord<>(checked(1, 5.0, true, true)));
        h.processElement(new StreamRecord<>(checked(200, 6.0, false, true)));
        h.processElement(new StreamRecord<>(checked(3, -1.0, true, false)));
        // amount null: the projection's (amount >= 0) IS TRUE is false, a violation as in DLT.
        h.processElement(new StreamRecord<>(checked(4, null, true, false)));

        assertThat(h.extractOutputValues())
                .extracting(r -> r.getLong(0))
                .as("the warned row 200 is kept, the dropped 3 and 4 are not")
                .containsExactly(1L, 200L);
        assertThat(h.getSideOutput(Expectations.REJECTED))
                .extracting(StreamRecord::getValue)
                .extracting(r -> r.getLong(0) + " " + r.getString(2))
                .containsExactly("3 positive_amount", "4 positive_amount");

        h.snapshot(7, 0);
        assertThat(Fragments.read(scope().layout().fragments("run-1", 7)))
                .containsExactlyInAnyOrder(
                        new Fragment.ExpectationRows("events", "known_id", "warn", 0, 3, 1),
                        new Fragment.ExpectationRows("events", "positive_amount", "drop", 0, 2, 2));
        h.close();
    }

    @Test
    void aRowThatBreaksSeveralDropRulesIsRejectedOnceNamingThemAll() throws Exception {
        Expectation known = Expectation.parse("known_id:event_id < 100:drop");
        var h = harness(List.of(known, DROP));

        h.processElement(new StreamRecord<>(checked(500, -2.0, false, false)));

        assertThat(h.extractOutputValues()).isEmpty();
        assertThat(h.getSideOutput(Expectations.REJECTED))
                .extracting(r -> r.getValue().getString(2))
                .containsExactly(StringData.fromString("known_id,positive_amount"));
        h.close();
    }

    @Test
    void aFailRuleFailsTheJobForGoodNamingTheRuleTheTableAndTheRow() throws Exception {
        var h = harness(List.of(WARN, FAIL));

        h.processElement(new StreamRecord<>(checked(1, 5.0, true, true)));
        assertThatThrownBy(
                        () -> h.processElement(new StreamRecord<>(checked(2, 5000.0, true, false))))
                .isInstanceOf(PermanentFailure.class)
                .hasMessage(
                        "expectation 'small_amount' (amount < 1000, action fail) failed on table"
                                + " 'events' for the row {event_id=2, amount=5000.0}: the batch is"
                                + " not committed, the table and the checkpoint stay as they were."
                                + " Fix the data, or run without the rule (or with it as warn or"
                                + " drop)");
        h.close();
    }

    @Test
    void aDeltaConstraintFailsTheJobNamingTheConstraintTheTableAndTheRowAndCountsNothing()
            throws Exception {
        List<Expectation> rules =
                TableConstraints.rules(
                        Map.of("delta.constraints.positive_amount", "amount >= 0"),
                        RowType.of(
                                new org.apache.flink.table.types.logical.LogicalType[] {
                                    new BigIntType(false), new DoubleType()
                                },
                                new String[] {"event_id", "amount"}));
        assertThat(rules)
                .extracting(Expectation::toString)
                .containsExactly(
                        "positive_amount:amount >= 0:fail",
                        "event_id_not_null:`event_id` IS NOT NULL:fail");
        var h = harness(rules, true);

        h.processElement(new StreamRecord<>(checked(1, 5.0, true, true)));
        assertThatThrownBy(
                        () -> h.processElement(new StreamRecord<>(checked(2, -1.0, false, true))))
                .isInstanceOf(PermanentFailure.class)
                .hasMessageStartingWith(
                        "constraint 'positive_amount' (amount >= 0) of Delta table 'events' failed"
                                + " for the row {event_id=2, amount=-1.0}: the batch is not"
                                + " committed")
                .hasMessageEndingWith("(table constraint drop events positive_amount)");
        h.snapshot(3, 0);
        assertThat(Fragments.read(scope().layout().fragments("run-1", 3))).isEmpty();
        h.close();
    }
}
