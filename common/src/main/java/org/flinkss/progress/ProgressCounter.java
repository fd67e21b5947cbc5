package org.flinkss.progress;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.util.function.SerializableFunction;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Converts records on their way to a sink and counts them; at every checkpoint it leaves the count
 * as a progress fragment, which the driver adds into the batch's {@code sink.numOutputRows} once
 * the checkpoint has completed.
 */
public final class ProgressCounter<I, O> extends RichMapFunction<I, O>
        implements CheckpointedFunction {

    private static final long serialVersionUID = 1L;

    private final String checkpointDir;
    private final String runId;
    private final String kind;
    private final String name;
    private final SerializableFunction<I, O> convert;

    private transient long count;
    private transient int subtask;
    private transient int subtasks;

    public ProgressCounter(
            Path checkpointDir,
            String runId,
            String kind,
            String name,
            SerializableFunction<I, O> convert) {
        this.checkpointDir = checkpointDir.toAbsolutePath().toString();
        this.runId = runId;
        this.kind = kind;
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
        Map<String, Object> fragment = new LinkedHashMap<>();
        fragment.put("kind", kind);
        fragment.put("name", name);
        fragment.put("rows", count);
        // How many fragments of this name make a checkpoint whole (see ProgressTracker).
        fragment.put("subtasks", subtasks);
        Fragments.write(
                RunFiles.fragmentDir(Paths.get(checkpointDir), runId, context.getCheckpointId())
                        .resolve(kind + "-" + name + "-" + subtask + ".json"),
                fragment);
        count = 0;
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {}
}
