package org.flinkss.runtime.checkpoint;

import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.storage.Storage;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.List;

/**
 * The one place that knows what a query's checkpoint directory (Spark's {@code checkpointLocation})
 * holds and where:
 *
 * <pre>
 * &lt;base&gt;/_cp/&lt;query&gt;/
 *   metadata.json                   the query's identity: id, layout version, name, sources, sinks, stateful
 *                                   operators, tables
 *   checkpoints/&lt;job&gt;/chk-N        Flink's retained checkpoints (RocksDB, incremental)
 *   savepoints/savepoint-...        the savepoint each availableNow run ends with
 *   offsets/&lt;source&gt;/N             the splits of every batch planned, each written before it is read
 *   progress/log.jsonl              one progress object per committed batch
 *   progress/last.json              the last progress object printed
 *   progress/pending/&lt;run&gt;/&lt;chk&gt;/  what a run's operators reported at one checkpoint (fragments)
 *   progress/pending/&lt;run&gt;/merged  the last checkpoint whose fragments the driver merged
 *   runs/&lt;run&gt;/job.json            the Flink job of a run (and the cluster that runs it)
 *   runs/&lt;run&gt;/heartbeat           rewritten every 2 s by the run's client while it lives
 *   runs/&lt;run&gt;/caught-up-&lt;source&gt; written by a source once it has read what the run is to read
 *   runs/&lt;run&gt;/checkpoint-wanted-&lt;source&gt; the batch an availableNow source sealed last, for
 *                                   which its client asks a checkpoint at once
 *   fence.json                      the run that owns the directory: jobs of other runs stop
 *   damaged/...                     restore points set aside because their _metadata is unreadable
 *   runs/&lt;run&gt;/sealed-&lt;source&gt;/&lt;chk&gt;.json the last batch a source had sealed at checkpoint chk
 *                                   ({@link SealedBatch})
 *   commits/&lt;run&gt;/&lt;table&gt;-&lt;batch&gt;.json the batches a run's table committers skipped as already
 *                                   committed ({@link SkippedCommit})
 *   cleanup/&lt;table&gt;.json          where the last clean-up of the table's uncommitted data files ended
 *   .lock, .lock.owner              held by the running driver (local disk)
 *   lease/lease-N                   held by the running driver (object store, {@link CheckpointLock})
 * </pre>
 *
 * <p>The directory is a location of Flink's file systems ({@link #location()}): a local folder, or
 * {@code s3://bucket/prefix/_cp/<query>} on an object store; every part below is named the same way
 * on both, and read and written through {@code Storage}.
 *
 * <p>The folders that hold one entry per batch, checkpoint or run are {@link CheckpointLog}s, their
 * entries named as the {@link EntryNames} constants below say. Nothing else spells these names. The
 * layout is serializable so that operators can carry it (inside a {@link RunScope}) to the
 * TaskManagers, which reach the same directory.
 */
public final class CheckpointLayout implements Serializable {

    private static final long serialVersionUID = 1L;

    /**
     * The version of this layout and of the classes its savepoints name, recorded in {@code
     * metadata.json}. Version 2: the packages {@code org.flinkss.runtime.*} and {@code
     * org.flinkss.course.*}; a checkpoint without a version was made before them and is refused
     * (see {@link IdentityStore#checkLayout}).
     */
    public static final int VERSION = 2;

    // How the entries of each CheckpointLog of the directory are named: their on-disk format,
    // which checkpoints of every version hold, so never changed.

    /** {@code offsets/<source>/<batch id>}: the plan of a batch, in 19 digits. */
    public static final EntryNames<Long> BATCH_PLANS = EntryNames.numbered(19, "");

    /** {@code runs/<run>/sealed-<source>/<checkpoint id>.json}, in 12 digits. */
    public static final EntryNames<Long> SEALED_BATCHES = EntryNames.numbered(12, ".json");

    /** {@code commits/<run>/<table>-<batch id in 19 digits>.json}. */
    public static final EntryNames<String> SKIPPED_COMMITS = EntryNames.named(".json");

    /** {@code runs/<run>/job.json}: a folder per run, its job in it. */
    public static final EntryNames<String> RUN_JOBS = EntryNames.named("").inFolders("job.json");

    /** {@code progress/pending/<run>/}: a folder per run whose fragments are not merged. */
    public static final EntryNames<String> FRAGMENT_RUNS = EntryNames.named("");

    /** {@code progress/pending/<run>/<checkpoint id>/}, in 12 digits. */
    public static final EntryNames<Long> FRAGMENT_CHECKPOINTS = EntryNames.numbered(12, "");

    /** {@code progress/pending/<run>/<checkpoint id>/<kind>-<operator>[-<subtask>].json}. */
    public static final EntryNames<String> FRAGMENTS = EntryNames.named(".json");

    /** The folder under a base that holds every query's checkpoint directory. */
    public static final String CHECKPOINTS_FOLDER = "_cp";

    /** The local folder, absolute; null on an object store. */
    @Nullable private final String dir;

    /** The directory as a URI: {@code file:/...} or {@code s3://bucket/...}. */
    private final String uri;

    /** A checkpoint directory anywhere Flink's file systems reach: local or an object store. */
    public CheckpointLayout(Path dir) {
        if (Storage.isLocal(dir)) {
            this.dir =
                    Storage.localFile(dir, "a checkpoint")
                            .toPath()
                            .toAbsolutePath()
                            .normalize()
                            .toString();
            // Not File#toURI: it ends a folder that exists with a '/', and one layout is one name.
            this.uri = new Path("file", null, this.dir).toString();
        } else {
            this.dir = null;
            this.uri = dir.toString();
        }
    }

    /** The checkpoint directory of query {@code query} under a base anywhere: local or S3. */
    public static CheckpointLayout of(Path base, String query) {
        return new CheckpointLayout(new Path(allUnder(base), query));
    }

    /** Every query's checkpoint directory under a base anywhere: local or S3. */
    public static Path allUnder(Path base) {
        return new Path(base, CHECKPOINTS_FOLDER);
    }

    /** The directory as Flink's file systems name it: {@code file:/...} or {@code s3://...}. */
    public Path location() {
        return new Path(uri);
    }

    /** A file or folder of the directory by its relative name, as Flink's file systems name it. */
    Path location(String relative) {
        return new Path(location(), relative);
    }

    /** Whether the directory is on an object store (S3), where no local file reaches it. */
    public boolean isObjectStore() {
        return dir == null;
    }

    /** The lease of a directory on an object store ({@link CheckpointLock}). */
    public Path lease() {
        return location("lease");
    }

    /**
     * What {@code reset} deletes: everything a run wrote (Flink's checkpoints and savepoints, the
     * progress, the runs' records, the offset log, the commit reports, the clean-up records, the
     * identity), not the lock.
     */
    public List<Path> resetParts() {
        return List.of(
                checkpoints(),
                savepoints(),
                location("progress"),
                runs(),
                location("offsets"),
                commitReports(),
                location("cleanup"),
                metadata());
    }

    // Where each part is, as Flink's file systems name it (a local directory or an object store).

    /**
     * A reset under way ({@link ResetMarker}): written before a reset deletes anything, removed
     * when it is done; not a reset part, so that a reset cut short is completed by the next.
     */
    public Path resetMarker() {
        return location("reset.json");
    }

    /** The query's identity. */
    public Path metadata() {
        return location("metadata.json");
    }

    public Path checkpoints() {
        return location("checkpoints");
    }

    public Path checkpointsOfJob(String jobId) {
        return new Path(checkpoints(), jobId);
    }

    public Path savepoints() {
        return location("savepoints");
    }

    /** Where restore points whose {@code _metadata} cannot be read are set aside, for a look. */
    public Path damaged() {
        return location("damaged");
    }

    /** Spark's offset log of one source: the splits of each batch planned. */
    public Path offsets(String source) {
        return location("offsets/" + source);
    }

    public Path progressLog() {
        return location("progress/log.jsonl");
    }

    public Path lastProgress() {
        return location("progress/last.json");
    }

    /** The fragments of every run whose progress is not merged yet. */
    public Path pendingProgress() {
        return location("progress/pending");
    }

    public Path pendingProgress(String runId) {
        return new Path(pendingProgress(), runId);
    }

    /**
     * {@code progress/pending/<run>/merged}: the last checkpoint of run {@code runId} whose
     * fragments the driver merged; its folder and older ones are only left to remove.
     */
    public Path mergedFragments(String runId) {
        return new Path(pendingProgress(runId), "merged");
    }

    /** What the operators of run {@code runId} reported at checkpoint {@code checkpointId}. */
    public Path fragments(String runId, long checkpointId) {
        return new Path(pendingProgress(runId), FRAGMENT_CHECKPOINTS.name(checkpointId));
    }

    public Path runs() {
        return location("runs");
    }

    public Path run(String runId) {
        return new Path(runs(), runId);
    }

    /** Rewritten by the client of run {@code runId} while it lives ({@link RunFence}). */
    public Path heartbeat(String runId) {
        return new Path(run(runId), "heartbeat");
    }

    /**
     * Names the run that owns the directory; the jobs of every other run stop ({@link RunFence}).
     */
    public Path fence() {
        return location("fence.json");
    }

    public Path caughtUpMarker(String runId, String source) {
        return new Path(run(runId), "caught-up-" + source);
    }

    /** What source {@code source} of an availableNow run is to read, written at its start. */
    public Path plan(String runId, String source) {
        return new Path(run(runId), "plan-" + source + ".json");
    }

    /**
     * Written by a source of an availableNow run when it has sealed a batch and more are to come:
     * the run's client asks for a checkpoint at once, so the next batch need not wait for the
     * periodic one.
     */
    public Path checkpointWanted(String runId, String source) {
        return new Path(run(runId), "checkpoint-wanted-" + source);
    }

    /** Every {@link SealedBatch} record of a source in a run. */
    public Path sealedBatches(String runId, String source) {
        return new Path(run(runId), "sealed-" + source);
    }

    /** The commit reports of every run not yet read by its driver. */
    public Path commitReports() {
        return location("commits");
    }

    public Path commitReports(String runId) {
        return new Path(commitReports(), runId);
    }

    /**
     * Where the last clean-up of table {@code table}'s uncommitted data files ended ({@code
     * Warehouse#deleteUncommitted}).
     */
    public Path cleanupRecord(String table) {
        return location("cleanup/" + table + ".json");
    }

    /**
     * The OS file lock of a local directory ({@link CheckpointLock}); on an object store, {@link
     * #lease()}.
     */
    public Path lockFile() {
        return location(".lock");
    }

    /** Who holds {@link #lockFile()}: a line for the next run's refusal. */
    public Path lockOwner() {
        return location(".lock.owner");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CheckpointLayout && ((CheckpointLayout) o).uri.equals(uri);
    }

    @Override
    public int hashCode() {
        return uri.hashCode();
    }

    @Override
    public String toString() {
        return dir != null ? dir : uri;
    }
}
