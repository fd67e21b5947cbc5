package org.flinkss.runtime.expect;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import org.flinkss.runtime.PermanentFailure;
import org.flinkss.runtime.progress.Fragment;
import org.flinkss.runtime.progress.Fragments;
import org.flinkss.runtime.progress.RunScope;

import java.util.List;
import java.util.StringJoiner;

/**
 * Acts on the verdicts that the expectations' expressions gave a row: its table's columns are
 * followed by one {@code BOOLEAN NOT NULL} per rule ({@code (expr) IS TRUE}). A row is counted
 * against each rule; it goes on with its table's columns only unless a {@code drop} rule failed
 * (then it goes to the rejected side output with the names of the rules it broke), and a failed
 * {@code fail} rule fails the job at once with a {@link PermanentFailure}: the checkpoint that
 * would have committed the batch never completes, so nothing of the batch is committed and no
 * restart replays it into the same failure. At every checkpoint each rule's counts are left as a
 * progress fragment. Package-private: the machinery of {@link Expectations}.
 */
final class ExpectationCheck extends ProcessFunction<RowData, RowData>
        implements CheckpointedFunction {

    private static final long serialVersionUID = 1L;

    private final String table;
    private final RowType rowType;
    private final List<Expectation> rules;
    private final OutputTag<RowData> rejected;
    private final RunScope scope;

    /** The rules are a table's Delta constraints: errors name a constraint, no counts. */
    private final boolean constraints;

    private transient RowData.FieldGetter[] getters;
    private transient long[] passed;
    private transient long[] failed;
    private transient int subtask;

    ExpectationCheck(
            String table,
            RowType rowType,
            List<Expectation> rules,
            OutputTag<RowData> rejected,
            RunScope scope,
            boolean constraints) {
        this.table = table;
        this.rowType = rowType;
        this.rules = List.copyOf(rules);
        this.rejected = rejected;
        this.scope = scope;
        this.constraints = constraints;
    }

    @Override
    public void open(OpenContext openContext) {
        getters = new RowData.FieldGetter[rowType.getFieldCount()];
        for (int i = 0; i < getters.length; i++) {
            getters[i] = RowData.createFieldGetter(rowType.getTypeAt(i), i);
        }
        passed = new long[rules.size()];
        failed = new long[rules.size()];
        subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    }

    @Override
    public void processElement(RowData checked, Context ctx, Collector<RowData> out) {
        int columns = getters.length;
        GenericRowData row = new GenericRowData(checked.getRowKind(), columns);
        for (int i = 0; i < columns; i++) {
            row.setField(i, getters[i].getFieldOrNull(checked));
        }
        StringJoiner dropped = new StringJoiner(",");
        for (int r = 0; r < rules.size(); r++) {
            if (checked.getBoolean(columns + r)) {
                passed[r]++;
                continue;
            }
            failed[r]++;
            Expectation rule = rules.get(r);
            if (rule.action() == ExpectationAction.FAIL) {
                throw new PermanentFailure(failure(rule, row));
            }
            if (rule.action() == ExpectationAction.DROP) {
                dropped.add(rule.name());
            }
        }
        if (dropped.length() == 0) {
            out.collect(row);
        } else {
            // _rule, and _batch_id null: the rejected table's commit writes the batch's id.
            GenericRowData reject = new GenericRowData(columns + 2);
            for (int i = 0; i < columns; i++) {
                reject.setField(i, row.getField(i));
            }
            reject.setField(columns, StringData.fromString(dropped.toString()));
            ctx.output(rejected, reject);
        }
    }

    private String failure(Expectation rule, GenericRowData row) {
        StringJoiner values = new StringJoiner(", ", "{", "}");
        for (int i = 0; i < getters.length; i++) {
            Object v = row.getField(i);
            values.add(rowType.getFieldNames().get(i) + "=" + (v == null ? "null" : v));
        }
        if (constraints) {
            return "constraint '"
                    + rule.name()
                    + "' ("
                    + rule.expression()
                    + ") of Delta table '"
                    + table
                    + "' failed for the row "
                    + values
                    + ": the batch is not committed, the table and the checkpoint stay as they"
                    + " were. Fix the data or the query, or drop the constraint (table constraint"
                    + " drop "
                    + table
                    + " "
                    + rule.name()
                    + ")";
        }
        return "expectation '"
                + rule.name()
                + "' ("
                + rule.expression()
                + ", action fail) failed on table '"
                + table
                + "' for the row "
                + values
                + ": the batch is not committed, the table and the checkpoint stay as they"
                + " were. Fix the data, or run without the rule (or with it as warn or drop)";
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
        if (constraints) {
            return;
        }
        for (int r = 0; r < rules.size(); r++) {
            Expectation rule = rules.get(r);
            Fragments.write(
                    scope,
                    context.getCheckpointId(),
                    new Fragment.ExpectationRows(
                            table,
                            rule.name(),
                            rule.action().spelled(),
                            subtask,
                            passed[r],
                            failed[r]));
            passed[r] = 0;
            failed[r] = 0;
        }
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {}
}
