package org.flinkss.runtime.ops;

import javax.annotation.Nullable;

import java.util.List;
import java.util.Map;

/**
 * What a query's checkpoint says of it, for {@code status <query>}: the identity the checkpoint was
 * made with (its sources, the tables it writes with their columns, its stateful operators, which
 * name the API, the window and the output mode), its last committed batch and the watermark that
 * batch ended with, and the restore points a next run can start from.
 *
 * @param query the query's name
 * @param checkpoint where the checkpoint is (a local folder or a URI)
 * @param queryId Spark's query id, kept across runs; null if the checkpoint has no identity yet (a
 *     {@code reset} made it, and no run has claimed it since)
 * @param sources the sources, as Spark describes them
 * @param tables the tables the query writes, its record tables last
 * @param columns each table's columns as the identity recorded them; empty if not recorded
 * @param stateful the stateful operators, each as it describes itself
 * @param lastBatchId the last committed batch, -1 if none
 * @param lastBatchTime when it started, as Spark prints it; null if none
 * @param lastBatchRows the rows it read
 * @param watermark the watermark the last batch ended with, as Spark prints it; null before one
 * @param restorePoints the complete checkpoints and savepoints, oldest first
 * @param warehouse the warehouse the checkpoint is bound to, recorded at its first run; null if not
 *     recorded yet (a checkpoint made before the record existed records it at its next run)
 * @param conf the Spark configuration the checkpoint keeps for its life (Spark's {@code
 *     OffsetSeqMetadata.conf}: {@code spark.sql.streaming.multipleWatermarkPolicy}); empty if none
 */
public record QueryStatus(
        String query,
        String checkpoint,
        @Nullable String queryId,
        List<String> sources,
        List<String> tables,
        Map<String, List<String>> columns,
        List<String> stateful,
        long lastBatchId,
        @Nullable String lastBatchTime,
        long lastBatchRows,
        @Nullable String watermark,
        List<RestorePoint> restorePoints,
        @Nullable String warehouse,
        Map<String, String> conf) {

    /**
     * A checkpoint or savepoint a run can restore.
     *
     * @param savepoint a savepoint (an availableNow run's end), else a checkpoint
     * @param location where it is
     * @param completedMillis when it was completed, epoch milliseconds (0 if unknown)
     */
    public record RestorePoint(boolean savepoint, String location, long completedMillis) {}
}
