package org.flinkss.runtime.state;

import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.OperatorIDPair;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.state.api.OperatorIdentifier;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.RestorePoints;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A restore point's operators held up against the job a run would submit ({@code run --dry-run}):
 * which state the job takes over and which it has no operator for. Flink maps state to operators by
 * their ids (a uid's hash, or the graph's own hash where an operator has none) and refuses a
 * restore that leaves state unmapped; so an operator of the restore point missing from the job
 * means the run would fail, not that its state would silently go.
 */
public final class RestoredOperators {

    /** What the run would do with an operator's state. */
    public enum Fate {
        /** The job has an operator of this id: it restores the state. */
        KEPT,
        /** The job has none: Flink refuses to restore (the run fails before its first batch). */
        NO_OPERATOR
    }

    /**
     * @param name the job's name for it (its uid, else its task's name), or the id alone
     * @param bytes its state's size in the restore point
     * @param keyed whether it holds keyed state (the windows, ids, sessions a query keeps)
     */
    public record Operator(String id, String name, long bytes, boolean keyed, Fate fate) {}

    private final StatePoint point;
    private final CheckpointMetadata metadata;

    private RestoredOperators(StatePoint point, CheckpointMetadata metadata) {
        this.point = point;
        this.metadata = metadata;
    }

    /**
     * The metadata of {@code point}.
     *
     * @throws IllegalStateException if it cannot be read, naming the file
     */
    public static RestoredOperators of(StatePoint point) {
        return new RestoredOperators(point, MetadataReader.load(point));
    }

    /**
     * The metadata of the restore point at {@code location} of the checkpoint {@code layout}, with
     * the batch it holds where the progress log tells.
     *
     * @throws IllegalStateException if it cannot be read, naming the file
     */
    public static RestoredOperators of(CheckpointLayout layout, Path location) {
        StatePoint point =
                PointBatches.of(layout).stream()
                        .filter(p -> p.location().equals(location))
                        .findFirst()
                        .orElse(new StatePoint(-1, location, false, RestorePoints.shown(location)));
        return of(point);
    }

    public StatePoint point() {
        return point;
    }

    /**
     * The operators with state, the largest first, each with its fate in {@code job}.
     *
     * @param uids the uids of the job's operators, to name them
     */
    public List<Operator> against(JobGraph job, List<String> uids) {
        Map<OperatorID, String> names = new HashMap<>();
        for (JobVertex vertex : job.getVertices()) {
            for (OperatorIDPair pair : vertex.getOperatorIDs()) {
                names.put(pair.getGeneratedOperatorID(), vertex.getName());
                pair.getUserDefinedOperatorID().ifPresent(id -> names.put(id, vertex.getName()));
            }
        }
        Map<OperatorID, String> byUid = new HashMap<>();
        for (String uid : uids) {
            byUid.put(OperatorIdentifier.forUid(uid).getOperatorId(), uid);
        }
        List<Operator> operators = new ArrayList<>();
        for (org.apache.flink.runtime.checkpoint.OperatorState op : metadata.getOperatorStates()) {
            long bytes = op.getStateSize();
            if (bytes == 0 && op.getCoordinatorState() == null) {
                continue; // stateless: nothing to restore
            }
            boolean keyed = false;
            for (OperatorSubtaskState subtask : op.getStates()) {
                keyed |= subtask.getManagedKeyedState().hasState();
            }
            OperatorID id = op.getOperatorID();
            String name = byUid.getOrDefault(id, names.getOrDefault(id, id.toHexString()));
            operators.add(
                    new Operator(
                            id.toHexString(),
                            name,
                            bytes,
                            keyed,
                            names.containsKey(id) ? Fate.KEPT : Fate.NO_OPERATOR));
        }
        operators.sort(Comparator.comparingLong(Operator::bytes).reversed());
        return operators;
    }

    /**
     * The bytes Flink keeps for the coordinator of the operator with {@code uid} (a source's
     * enumerator), or empty if it has none here.
     */
    public Optional<byte[]> coordinatorState(String uid) throws IOException {
        OperatorID id = OperatorIdentifier.forUid(uid).getOperatorId();
        for (org.apache.flink.runtime.checkpoint.OperatorState op : metadata.getOperatorStates()) {
            if (op.getOperatorID().equals(id)) {
                return Optional.ofNullable(read(op.getCoordinatorState()));
            }
        }
        return Optional.empty();
    }

    @Nullable
    private static byte[] read(@Nullable StreamStateHandle handle) throws IOException {
        if (handle == null) {
            return null;
        }
        Optional<byte[]> inline = handle.asBytesIfInMemory();
        if (inline.isPresent()) {
            return inline.get();
        }
        try (InputStream in = handle.openInputStream()) {
            return in.readAllBytes();
        }
    }
}
