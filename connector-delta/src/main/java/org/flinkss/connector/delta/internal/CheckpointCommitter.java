package org.flinkss.connector.delta.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.Committer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.flinkss.runtime.table.delta.CommitResult;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * Commits each checkpoint's files as one Delta version with {@code txn(appId, checkpoint id)}. A
 * committable the table already holds (Flink commits a restored checkpoint's committables again,
 * whether or not their commit happened before the failure) is skipped by {@link DeltaTable#append}
 * and reported as already committed.
 */
@Internal
public final class CheckpointCommitter implements Committer<DeltaCommittable> {

    private static final Logger LOG = LoggerFactory.getLogger(CheckpointCommitter.class);

    private final String path;
    private DeltaTable table;

    public CheckpointCommitter(String path) {
        this.path = path;
    }

    @Override
    public void commit(Collection<CommitRequest<DeltaCommittable>> requests) {
        if (table == null) {
            table = DeltaTable.forPath(path);
        }
        // In checkpoint order: a txn version below the table's is a replay, skipped.
        List<CommitRequest<DeltaCommittable>> ordered = new ArrayList<>(requests);
        ordered.sort(Comparator.comparingLong(r -> r.getCommittable().checkpointId()));
        for (CommitRequest<DeltaCommittable> request : ordered) {
            DeltaCommittable c = request.getCommittable();
            CommitResult result = table.append(c.appId(), c.checkpointId(), c.files());
            // The runtime's words are a micro-batch's: here the batch id is the checkpoint id.
            LOG.info("Delta table {}: {}", path, result.describe());
            if (!result.committed()) {
                request.signalAlreadyCommitted();
            }
        }
    }

    @Override
    public void close() {}
}
