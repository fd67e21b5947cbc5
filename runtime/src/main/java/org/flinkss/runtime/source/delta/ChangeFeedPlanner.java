package org.flinkss.runtime.source.delta;

import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import org.flinkss.runtime.PermanentFailure;
import org.flinkss.runtime.progress.SourcePlan;
import org.flinkss.runtime.source.ReadLimit;
import org.flinkss.runtime.source.SplitPlanner;
import org.flinkss.runtime.table.delta.ChangeDataFeed;
import org.flinkss.runtime.table.delta.DeltaTable;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Plans micro-batches over a Delta table's change data feed, as Spark's {@code
 * readStream.format("delta").option("readChangeFeed", "true")}: the offset is a table version. A
 * stream with a starting version reads the changes of that version and of every later one; a stream
 * without one starts with the table's snapshot at its current version, every row an {@code insert}
 * of that version (Spark's initial snapshot), then the changes of the versions after it. Each
 * version is one split ({@link ChangeFeedSplit}), read whole by one reader ({@link
 * ChangeFeedFormat}); a batch takes whole versions, at most {@code maxFilesPerTrigger} of them
 * ({@value DeltaPlanner#DEFAULT_MAX_FILES} by default: Spark admits a commit's change files
 * together too, and counts files, not versions). In changelog mode ({@code oneVersionPerBatch}) a
 * batch is one version, so that two readers never emit two versions' changes of a key out of order.
 *
 * <p>Refused, failing the run in one line, as Spark refuses them: a table without the feed (naming
 * {@link ChangeDataFeed#PROPERTY} and {@code reset}), a starting version after the table's last,
 * and a starting version at which the feed was not on yet.
 */
public final class ChangeFeedPlanner implements SplitPlanner<ChangeFeedSplit> {

    private static final long serialVersionUID = 1L;

    private final String table;
    private final String folder;
    @Nullable private final Long startingVersion;
    private final boolean oneVersionPerBatch;

    /** The next version to read; null before the stream's first batch. */
    private transient Position next;

    private transient long target;
    private transient long commits;
    private transient boolean checked;
    private transient DeltaTable delta;
    private transient Map<Long, Position> plannedEnds;

    /** The next split of a stream: the changes of {@code version}, or its snapshot. */
    private record Position(long version, boolean snapshot) {}

    /**
     * @param table the table's name, for messages
     * @param folder the table's folder (URI)
     * @param startingVersion the first version whose changes are read (Spark's {@code
     *     startingVersion}), or null to start with the current snapshot as inserts
     * @param oneVersionPerBatch a batch reads one version (changelog mode)
     */
    public ChangeFeedPlanner(
            String table,
            String folder,
            @Nullable Long startingVersion,
            boolean oneVersionPerBatch) {
        if (startingVersion != null && startingVersion < 0) {
            throw new IllegalArgumentException(
                    "change data feed of table '"
                            + table
                            + "': starting version "
                            + startingVersion
                            + " is negative");
        }
        this.table = table;
        this.folder = folder;
        this.startingVersion = startingVersion;
        this.oneVersionPerBatch = oneVersionPerBatch;
    }

    private DeltaTable delta() {
        if (delta == null) {
            delta = DeltaTable.forPath(folder);
        }
        return delta;
    }

    @Override
    public void restore(byte[] committed) throws IOException {
        plannedEnds = new HashMap<>();
        next = null;
        commits = 0;
        target = -1;
        checked = false;
        if (committed != null) {
            DataInputDeserializer in = new DataInputDeserializer(committed);
            commits = in.readLong();
            if (in.readBoolean()) {
                next = new Position(in.readLong(), in.readBoolean());
            }
        }
    }

    @Override
    public byte[] committed() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(32);
        out.writeLong(commits);
        out.writeBoolean(next != null);
        if (next != null) {
            out.writeLong(next.version());
            out.writeBoolean(next.snapshot());
        }
        return out.getCopyOfBuffer();
    }

    @Override
    public void refreshTarget() {
        if (next == null) {
            target = delta().version();
        } else {
            long known = next.snapshot() ? next.version() : next.version() - 1;
            target = delta().latestVersionFrom(known);
        }
        if (!checked) {
            check();
            checked = true;
        }
    }

    /** The refusals of a stream's start, once per run. */
    private void check() {
        if (!delta().hasChangeFeed()) {
            throw new PermanentFailure(
                    "table '"
                            + table
                            + "' has no change data feed ("
                            + ChangeDataFeed.PROPERTY
                            + " is not set), so it cannot be read with 'read-change-feed'. A table"
                            + " of a MERGE, update-mode or complete-mode query gets it when that"
                            + " query is reset (reset <query>), which empties it; or read the"
                            + " table's rows without 'read-change-feed'.");
        }
        if (next == null && startingVersion != null) {
            if (startingVersion > target) {
                throw new PermanentFailure(
                        "change data feed of table '"
                                + table
                                + "': starting version "
                                + startingVersion
                                + " is after its last version, "
                                + target
                                + ": give a version from 0 to "
                                + target);
            }
            if (!ChangeDataFeed.enabledIn(delta().snapshotAt(startingVersion).properties())) {
                throw new PermanentFailure(
                        "change data feed of table '"
                                + table
                                + "': change data was not recorded for version "
                                + startingVersion
                                + " ("
                                + ChangeDataFeed.PROPERTY
                                + " was not on yet). 'table history "
                                + table
                                + "' shows the version that turned it on: start from it or"
                                + " later.");
            }
        }
    }

    /** Where the stream reads next: its position, the starting version, or the snapshot. */
    private Position start() {
        if (next != null) {
            return next;
        }
        return startingVersion != null
                ? new Position(startingVersion, false)
                : new Position(target, true);
    }

    private int maxVersions(ReadLimit limit) {
        return oneVersionPerBatch
                ? 1
                : limit.maxFilesPerTrigger().orElse(DeltaPlanner.DEFAULT_MAX_FILES);
    }

    @Override
    public List<ChangeFeedSplit> nextBatch(long batchId, ReadLimit limit) {
        int max = maxVersions(limit);
        List<ChangeFeedSplit> batch = new ArrayList<>();
        Position p = start();
        if (p.snapshot()) {
            batch.add(new ChangeFeedSplit(p.version(), true, batchId, 0));
            p = new Position(p.version() + 1, false);
        }
        long v = p.version();
        for (; v <= target && batch.size() < max; v++) {
            batch.add(new ChangeFeedSplit(v, false, batchId, 0));
        }
        plannedEnds.put(batchId, new Position(v, false));
        return batch;
    }

    @Override
    public boolean nextBatchIsEmpty() {
        Position p = start();
        return !p.snapshot() && p.version() > target;
    }

    @Override
    public void commit(List<ChangeFeedSplit> batch) {
        if (batch.isEmpty()) {
            return;
        }
        long batchId = batch.get(0).batchId();
        Position end = plannedEnds.remove(batchId);
        if (end == null) {
            // A batch read again as the offset log recorded it: it ends after its last version.
            end = new Position(batch.get(batch.size() - 1).version() + 1, false);
        }
        next = end;
        commits++;
    }

    /** The versions from the position up to the target, cut into batches as planned. */
    @Override
    public Optional<SourcePlan.Backlog> backlog(ReadLimit limit) {
        Position p = start();
        long versions = Math.max(0, target - p.version() + 1) + (p.snapshot() ? 1 : 0);
        int max = maxVersions(limit);
        long batches = (versions + max - 1) / max;
        String range =
                versions == 0
                        ? ""
                        : table
                                + " changes of versions "
                                + p.version()
                                + ".."
                                + target
                                + (p.snapshot() ? " (snapshot first)" : "");
        return Optional.of(new SourcePlan.Backlog(batches, versions, 0, -1, range));
    }

    @Override
    public Map<String, Object> describeOffsets() {
        Map<String, Object> offsets = new LinkedHashMap<>();
        if (next != null) {
            offsets.put("reservoirVersion", next.version());
            offsets.put("index", -1);
            offsets.put("isStartingVersion", false);
        }
        return offsets;
    }

    @Override
    public SimpleVersionedSerializer<ChangeFeedSplit> splitSerializer() {
        return new ChangeFeedSplit.Serializer();
    }
}
