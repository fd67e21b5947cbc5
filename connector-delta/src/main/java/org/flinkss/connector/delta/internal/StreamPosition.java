package org.flinkss.connector.delta.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.file.src.FileSourceSplit;

import java.util.List;

/**
 * Where a {@code DeltaStreamSource} stands at a checkpoint: the first table version it has not yet
 * turned into splits, and the splits it has and no reader holds yet (a split a reader holds is in
 * that reader's state, with its position in the file).
 *
 * @param nextVersion the first version to look for
 * @param pending the files of earlier versions not yet handed to a reader, in the log's order
 */
@Internal
public record StreamPosition(long nextVersion, List<FileSourceSplit> pending) {

    public StreamPosition {
        pending = List.copyOf(pending);
    }
}
