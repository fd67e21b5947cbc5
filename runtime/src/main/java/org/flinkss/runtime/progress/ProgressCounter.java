package org.flinkss.runtime.progress;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.util.function.SerializableFunction;

/**
 * Converts records on their way to a sink and counts them; at every checkpoint it leaves the count
 * as a progress fragment, which the driver adds into the batch's {@code sink.numOutputRows} once
 * the checkpoint has completed.
 */
public final class ProgressCounter<I, O> extends RichMapFunction<I, O>
        implements CheckpointedFunction {

    private static final long serialVersionUID = 1L;

    private final RunScope scope;
    private final String name;
    private final SerializableFunction<I, O> convert;

    private transient long count;
    private transient int subtask;
    private transient int subtasks;

    /**
     * @param name the sink, as progress names it
     */
    public ProgressCounter(RunScope scope, String name, SerializableFunction<I, O> convert) {
        this.scope = scope;
        this.name = name;
        this.convert = convert;
    }

    @Override
    public void open(OpenContext openContext) {
        subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        subtasks = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
    }

    @Override
    public O map(I value) {
        count++;
        return convert.apply(value);
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
        Fragments.write(
                scope,
                context.getCheckpointId(),
                new Fragment.SinkRows(name, subtask, subtasks, count));
        count = 0;
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {}
}
