package org.flinkss.runtime.source;

import org.apache.flink.util.FlinkRuntimeException;

/**
 * A micro-batch source's request that Flink restart the whole query from its last checkpoint, not
 * only the region that failed: thrown by the source's enumerator when Flink restored one of its
 * readers but kept the enumerator, whose batches and watermark are then ahead of the data.
 *
 * <p>When a job's final failure is this request, the exception to fix is the task failure that came
 * before it: the runner finds this type in the job's failure and reports the task's own exception
 * first.
 */
public final class GlobalRestartRequest extends FlinkRuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * @param source the source's name in its query
     * @param reader the subtask index of the reader that Flink restored
     */
    public GlobalRestartRequest(String source, int reader) {
        super(
                "source '"
                        + source
                        + "': reader "
                        + reader
                        + " restarted from the last checkpoint; restarting the whole query from"
                        + " that checkpoint so that its batches and watermark stay consistent");
    }
}
