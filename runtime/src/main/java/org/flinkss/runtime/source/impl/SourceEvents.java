package org.flinkss.runtime.source.impl;

import org.apache.flink.api.connector.source.SourceEvent;

/** The micro-batch protocol between the split enumerator and the readers. */
final class SourceEvents {

    private SourceEvents() {}

    /**
     * Reader to enumerator: "I have nothing left to read; here is all I read of the current batch".
     * It doubles as the request for the next split.
     */
    static final class ReaderIdle implements SourceEvent {
        private static final long serialVersionUID = 1L;
        final BatchStats stats;

        ReaderIdle(BatchStats stats) {
            this.stats = stats;
        }
    }

    /**
     * Enumerator to readers: batch {@code batchId} is read everywhere; emit the watermark it ended
     * with (Spark's watermark in milliseconds, {@link Long#MIN_VALUE} for none). Sent again to
     * every reader that registers, so that a restored job carries the watermark on before any
     * record (Flink keeps no watermark in checkpoints).
     */
    static final class AdvanceWatermark implements SourceEvent {
        private static final long serialVersionUID = 1L;
        final long batchId;
        final long watermark;

        AdvanceWatermark(long batchId, long watermark) {
            this.batchId = batchId;
            this.watermark = watermark;
        }
    }

    /** Reader to enumerator: the watermark of {@code batchId} is emitted, after all its records. */
    static final class WatermarkEmitted implements SourceEvent {
        private static final long serialVersionUID = 1L;
        final long batchId;

        WatermarkEmitted(long batchId) {
            this.batchId = batchId;
        }
    }

    /**
     * Enumerator to readers: read the splits restored from your state. A reader restored with
     * splits of a batch still being read holds them until this comes, which is once the restored
     * watermark has reached every operator ({@link MicroBatchEnumerator}); any other reader has
     * nothing to hold and ignores it.
     */
    static final class ReleaseSplits implements SourceEvent {
        private static final long serialVersionUID = 1L;
    }
}
