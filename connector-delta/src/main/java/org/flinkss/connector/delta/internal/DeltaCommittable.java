package org.flinkss.connector.delta.internal;

import org.apache.flink.annotation.Internal;

import org.flinkss.runtime.table.delta.DataFile;

import java.util.List;

/**
 * What one Delta commit adds: the data files of every writer subtask for one checkpoint.
 *
 * @param appId the {@code txn} application id, {@code flink-<job id>} of the job that wrote the
 *     files: a job resubmitted from a checkpoint commits its restored committables under the id
 *     that wrote them, so that their replay is recognised
 * @param checkpointId the {@code txn} version
 */
@Internal
public record DeltaCommittable(String appId, long checkpointId, List<DataFile> files) {

    public DeltaCommittable {
        files = List.copyOf(files);
    }
}
