package org.flinkss.connector.delta;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.table.data.RowData;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The injected failure of the kill tests: slow enough for checkpoints mid-file, it throws once,
 * after 1,000 rows and a completed checkpoint. Its counts are the JVM's: {@link #reset} before a
 * job.
 */
final class FailOnceMidway implements MapFunction<RowData, RowData>, CheckpointListener {

    private static final long serialVersionUID = 1L;

    static final AtomicInteger failures = new AtomicInteger();
    private static final AtomicLong seen = new AtomicLong();
    private static volatile boolean checkpointed;

    static void reset() {
        failures.set(0);
        seen.set(0);
        checkpointed = false;
    }

    @Override
    public RowData map(RowData row) throws Exception {
        Thread.sleep(1);
        if (seen.incrementAndGet() >= 1_000 && checkpointed && failures.compareAndSet(0, 1)) {
            throw new IllegalStateException("injected failure after " + seen + " rows");
        }
        return row;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        checkpointed = true;
    }
}
