package org.flinkss.runtime.state;

import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.flink.state.api.runtime.SavepointLoader;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A restore point's {@code _metadata} through Flink's file systems: its operators and their state
 * sizes, named by the uids given where one hashes to the operator's id.
 */
final class MetadataReader {

    private MetadataReader() {}

    /**
     * The operators with state, by uid where known, the largest first.
     *
     * @throws IllegalStateException if the metadata cannot be read, naming the file
     */
    static List<OperatorState> operators(StatePoint point, Collection<String> uids) {
        CheckpointMetadata metadata = load(point);
        Map<OperatorID, String> byId = new HashMap<>();
        for (String uid : uids) {
            byId.put(OperatorIdentifier.forUid(uid).getOperatorId(), uid);
        }
        List<OperatorState> found = new ArrayList<>();
        for (org.apache.flink.runtime.checkpoint.OperatorState op : metadata.getOperatorStates()) {
            long bytes = op.getStateSize();
            if (bytes == 0 && op.getCoordinatorState() == null) {
                continue;
            }
            boolean keyed = false;
            for (OperatorSubtaskState subtask : op.getStates()) {
                keyed |= subtask.getManagedKeyedState().hasState();
            }
            found.add(
                    new OperatorState(
                            op.getOperatorID().toHexString(),
                            byId.get(op.getOperatorID()),
                            bytes,
                            op.getParallelism(),
                            keyed));
        }
        found.sort(Comparator.comparingLong(OperatorState::bytes).reversed());
        return found;
    }

    /** The metadata, or a one-line error naming the damaged file. */
    static CheckpointMetadata load(StatePoint point) {
        try {
            return SavepointLoader.loadSavepointMetadata(point.location().toString());
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException(
                    "cannot read "
                            + point.shown()
                            + "/_metadata ("
                            + String.valueOf(e.getMessage()).split("\n")[0]
                            + "): the restore point is damaged; read another with --batch N, or"
                            + " let the next run set it aside",
                    e);
        }
    }
}
