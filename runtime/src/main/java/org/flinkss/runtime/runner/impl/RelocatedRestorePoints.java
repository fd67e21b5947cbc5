package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.state.AbstractChannelStateHandle;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.OperatorStateHandle;
import org.apache.flink.runtime.state.StateObject;
import org.apache.flink.runtime.state.StreamStateHandle;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.RestorePoints;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.Optional;

/**
 * Keeps a run from restoring a retained checkpoint that its base folder was moved or copied away
 * from. A savepoint is self-contained: Flink names its files relative to its folder, so it restores
 * wherever the base is. A retained checkpoint ({@code checkpoints/<job>/chk-N}, RocksDB
 * incremental) names its files by absolute paths, at the place it was taken: after a move they are
 * gone, and after a copy they are the original base's, which the copy must never read.
 *
 * <p>Such a checkpoint (only a run that was killed or failed leaves one as its newest restore
 * point) is passed over, saying so, for the newest restore point older than it whose files all lie
 * in this checkpoint directory, or for none. The batches committed after that point are read again
 * as the offset log planned them, and every table skips them as already committed (Delta's {@code
 * txn}, the SQL tables' batch ids): no row is lost or written twice, as after a restore from any
 * older savepoint.
 */
@Internal
public final class RelocatedRestorePoints {

    private final CheckpointLayout layout;
    private final RestorePoints restorePoints;
    private final String queryName;
    private final PrintStream out;

    public RelocatedRestorePoints(
            CheckpointLayout layout,
            RestorePoints restorePoints,
            String queryName,
            PrintStream out) {
        this.layout = layout;
        this.restorePoints = restorePoints;
        this.queryName = queryName;
        this.out = out;
    }

    /**
     * {@code chosen} if its files are all in this checkpoint directory (or it is empty); else the
     * newest older restore point whose files are, or empty, saying which and why.
     */
    public Optional<Path> usable(Optional<Path> chosen) {
        if (chosen.isEmpty()) {
            return chosen;
        }
        Optional<String> outside = fileOutside(chosen.get());
        if (outside.isEmpty()) {
            return chosen;
        }
        List<Path> all = restorePoints.all();
        int index = all.indexOf(chosen.get());
        Optional<Path> instead = Optional.empty();
        for (int i = (index < 0 ? all.size() : index) - 1; i >= 0; i--) {
            if (fileOutside(all.get(i)).isEmpty()) {
                instead = Optional.of(all.get(i));
                break;
            }
        }
        out.println(
                "note: query '"
                        + queryName
                        + "': "
                        + RestorePoints.shown(chosen.get())
                        + " was taken before its base folder was moved or copied here: it names"
                        + " its files where they were then ("
                        + outside.get()
                        + "), not in "
                        + layout
                        + ". Restoring from "
                        + instead.map(
                                        p ->
                                                RestorePoints.shown(p)
                                                        + " instead (a savepoint names its files"
                                                        + " relative to itself)")
                                .orElse("no state instead")
                        + ": the batches committed after it are read again as they were planned"
                        + " and skipped by every table that holds them.");
        return instead;
    }

    /**
     * A file the restore point's state names that is not in this checkpoint directory, if any:
     * Flink's own reader loads the {@code _metadata}, whose file handles say where each file is.
     * State small enough to be kept in the {@code _metadata} itself names no file.
     */
    Optional<String> fileOutside(Path restorePoint) {
        Path metadata = new Path(restorePoint, "_metadata");
        CheckpointMetadata loaded;
        try (InputStream file = metadata.getFileSystem().open(metadata);
                DataInputStream in = new DataInputStream(new BufferedInputStream(file))) {
            loaded =
                    Checkpoints.loadCheckpointMetadata(
                            in,
                            RelocatedRestorePoints.class.getClassLoader(),
                            restorePoint.toUri().toString());
        } catch (IOException | RuntimeException e) {
            return Optional.empty(); // unreadable: DamagedRestorePoints has the say on it
        }
        String inside = key(layout.location()) + "/";
        for (OperatorState operator : loaded.getOperatorStates()) {
            Optional<String> found = outside(operator.getCoordinatorState(), inside);
            for (OperatorSubtaskState subtask : operator.getStates()) {
                for (OperatorStateHandle h : subtask.getManagedOperatorState()) {
                    found = found.or(() -> outside(h.getDelegateStateHandle(), inside));
                }
                for (OperatorStateHandle h : subtask.getRawOperatorState()) {
                    found = found.or(() -> outside(h.getDelegateStateHandle(), inside));
                }
                for (KeyedStateHandle h : subtask.getManagedKeyedState()) {
                    found = found.or(() -> outside(h, inside));
                }
                for (KeyedStateHandle h : subtask.getRawKeyedState()) {
                    found = found.or(() -> outside(h, inside));
                }
                for (StateObject h : subtask.getInputChannelState()) {
                    found = found.or(() -> outside(h, inside));
                }
                for (StateObject h : subtask.getResultSubpartitionState()) {
                    found = found.or(() -> outside(h, inside));
                }
            }
            if (found.isPresent()) {
                return found;
            }
        }
        return Optional.empty();
    }

    private static Optional<String> outside(StateObject handle, String inside) {
        if (handle instanceof IncrementalRemoteKeyedStateHandle incremental) {
            Optional<String> found = outside(incremental.getMetaDataStateHandle(), inside);
            for (HandleAndLocalPath file : incremental.getSharedState()) {
                found = found.or(() -> outside(file.getHandle(), inside));
            }
            for (HandleAndLocalPath file : incremental.getPrivateState()) {
                found = found.or(() -> outside(file.getHandle(), inside));
            }
            return found;
        }
        if (handle instanceof AbstractChannelStateHandle<?> channel) {
            return outside(channel.getDelegate(), inside);
        }
        if (handle instanceof StreamStateHandle stream) {
            return stream.maybeGetPath()
                    .map(Path::toString)
                    .filter(p -> !(key(new Path(p)) + "/").startsWith(inside));
        }
        return Optional.empty();
    }

    /** A path's name on its file system, whatever form its scheme takes ({@code file:/}, ...). */
    private static String key(Path path) {
        String p = path.toUri().getPath();
        String authority = path.toUri().getAuthority();
        p = p.endsWith("/") && p.length() > 1 ? p.substring(0, p.length() - 1) : p;
        return authority == null ? p : authority + p;
    }
}
