package org.flinkss.runtime.operators;

import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;

import org.flinkss.runtime.progress.Fragment;
import org.flinkss.runtime.progress.Fragments;
import org.flinkss.runtime.progress.RunScope;

import java.io.Serializable;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Spark's {@code stateOperators[]} entry for one stateful operator: {@code numRowsTotal} (state
 * rows held), {@code numRowsUpdated} (distinct rows changed since the last commit). The operator
 * calls {@link #added}, {@link #removed} and {@link #updated}; at every checkpoint the counts go
 * into a progress fragment. The count of rows held is itself checkpointed, as split list state:
 * each old count goes to exactly one subtask, so the sum stays exact when the parallelism changes.
 */
public final class StateMetrics implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String operatorName;
    private final RunScope scope;

    private transient ListState<Long> heldState;
    private transient long held;
    private transient Set<Object> updated;
    private transient long appended;

    public StateMetrics(String operatorName, RunScope scope) {
        this.operatorName = operatorName;
        this.scope = scope;
    }

    public void initialize(FunctionInitializationContext context) throws Exception {
        heldState =
                context.getOperatorStateStore()
                        .getListState(
                                new ListStateDescriptor<>(operatorName + "-rows-held", Types.LONG));
        held = 0;
        for (Long v : heldState.get()) {
            held += v;
        }
        updated = new HashSet<>();
    }

    public void added(int rows) {
        held += rows;
    }

    public void removed(int rows) {
        held -= rows;
    }

    /**
     * Rows appended to the state, each counted as updated even if an equal one is there (Spark's
     * stream-stream join counts every row it appends, and its dedup every key it puts). No set:
     * where a row cannot be changed twice before a commit, this is {@link #updated}'s count at a
     * counter's cost.
     */
    public void appended(int rows) {
        held += rows;
        appended += rows;
    }

    public void updated(Object stateRow) {
        updated.add(stateRow);
    }

    /** A state row identified by its key and a number (a window start, an event id). */
    public void updated(Object key, long part) {
        updated.add(new KeyAndPart<>(key, part));
    }

    public void snapshot(FunctionSnapshotContext context, RuntimeContext runtime) throws Exception {
        heldState.update(List.of(held));
        int subtask = runtime.getTaskInfo().getIndexOfThisSubtask();
        Fragments.write(
                scope,
                context.getCheckpointId(),
                new Fragment.StateRows(operatorName, subtask, held, updated.size() + appended));
        updated.clear();
        appended = 0;
    }
}
