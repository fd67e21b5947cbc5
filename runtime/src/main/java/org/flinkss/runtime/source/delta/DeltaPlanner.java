package org.flinkss.runtime.source.delta;

import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import org.flinkss.runtime.PermanentFailure;
import org.flinkss.runtime.progress.SourcePlan;
import org.flinkss.runtime.source.ReadLimit;
import org.flinkss.runtime.source.SplitPlanner;
import org.flinkss.runtime.table.delta.AddedFile;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Plans micro-batches over a Delta table, as Spark's {@code DeltaSource}: the offset is a table
 * version and an index of a file in it. A stream with no position yet starts with the table's
 * snapshot at its current version (its files in the order of their modification time, then path),
 * then reads, version by version, the files that each later version added. It reads log entries by
 * name only: neither the table's folder nor its log is listed, so a run starts as fast on a table
 * of 10,000 versions as on one of 10.
 *
 * <p>{@code maxFilesPerTrigger} and {@code maxBytesPerTrigger} apply to those files, as Delta's
 * {@code AdmissionLimits}: a batch takes the next file while it holds fewer files and fewer bytes
 * than the limits, so {@code maxBytesPerTrigger} is a soft limit (the file that reaches it is in
 * the batch; a file larger than it is a batch alone), unlike Spark's file source, which stays
 * within it. With neither, a batch takes at most {@value #DEFAULT_MAX_FILES} files (Delta's default
 * for a stream source). An availableNow run fixes the newest version it reads when it starts. A
 * version that removes data files (an overwrite, a {@code reset} of the table's writer) cannot be
 * read as a stream, as in Spark without {@code skipChangeCommits}: the run fails, naming the table
 * and the version.
 */
public final class DeltaPlanner implements SplitPlanner<DeltaSplit> {

    private static final long serialVersionUID = 1L;

    /** Delta's {@code maxFilesPerTrigger} when no limit is given. */
    public static final int DEFAULT_MAX_FILES = 1000;

    private final String table;
    private final String folder;

    /** The next file to read; null before the stream's first batch. */
    private transient Position next;

    private transient long target;
    private transient long commits;
    private transient DeltaTable delta;
    private transient Map<Long, List<AddedFile>> entries;
    private transient Map<Long, List<DataFile>> snapshots;
    private transient Map<Long, Position> plannedEnds;

    /** Where a stream is: the {@code index}-th file of a snapshot, or of what a version added. */
    private record Position(long version, long index, boolean snapshot) {}

    /**
     * @param table the table's name, for messages
     * @param folder the table's folder (URI)
     */
    public DeltaPlanner(String table, String folder) {
        this.table = table;
        this.folder = folder;
    }

    /** The table's name. */
    public String table() {
        return table;
    }

    /** The table's folder (URI). */
    public String folder() {
        return folder;
    }

    private DeltaTable delta() {
        if (delta == null) {
            delta = DeltaTable.forPath(folder);
        }
        return delta;
    }

    @Override
    public void restore(byte[] committed) throws IOException {
        entries = new HashMap<>();
        snapshots = new HashMap<>();
        plannedEnds = new HashMap<>();
        next = null;
        commits = 0;
        target = -1;
        if (committed != null) {
            DataInputDeserializer in = new DataInputDeserializer(committed);
            commits = in.readLong();
            if (in.readBoolean()) {
                next = new Position(in.readLong(), in.readLong(), in.readBoolean());
            }
        }
    }

    @Override
    public byte[] committed() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        out.writeLong(commits);
        out.writeBoolean(next != null);
        if (next != null) {
            out.writeLong(next.version());
            out.writeLong(next.index());
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
    }

    /** Where the stream starts reading: its position, or the snapshot at the target. */
    private Position start() {
        return next != null ? next : new Position(target, 0, true);
    }

    /** Delta's maxFilesPerTrigger: 1,000 unless a file or byte limit is given. */
    private static int maxFiles(ReadLimit limit) {
        return limit.maxFilesPerTrigger()
                .orElse(
                        limit.maxBytesPerTrigger().isPresent()
                                ? Integer.MAX_VALUE
                                : DEFAULT_MAX_FILES);
    }

    @Override
    public List<DeltaSplit> nextBatch(long batchId, ReadLimit limit) {
        int maxFiles = maxFiles(limit);
        long maxBytes = limit.maxBytesPerTrigger().orElse(Long.MAX_VALUE);
        List<DeltaSplit> batch = new ArrayList<>();
        long bytes = 0;
        Position p = start();
        if (p.snapshot()) {
            List<DataFile> files = snapshot(p.version());
            for (long i = p.index(); i < files.size(); i++) {
                DataFile f = files.get((int) i);
                if (batch.size() >= maxFiles || bytes >= maxBytes) {
                    plannedEnds.put(batchId, new Position(p.version(), i, true));
                    return batch;
                }
                batch.add(new DeltaSplit(f.path(), f.size(), p.version(), i, true, batchId, 0));
                bytes += f.size();
            }
            p = new Position(p.version() + 1, 0, false);
        }
        for (long v = p.version(); v <= target; v++) {
            List<AddedFile> added = added(v);
            for (long i = v == p.version() ? p.index() : 0; i < added.size(); i++) {
                DataFile f = added.get((int) i).file();
                if (batch.size() >= maxFiles || bytes >= maxBytes) {
                    plannedEnds.put(batchId, new Position(v, i, false));
                    return batch;
                }
                batch.add(new DeltaSplit(f.path(), f.size(), v, i, false, batchId, 0));
                bytes += f.size();
            }
        }
        plannedEnds.put(batchId, new Position(Math.max(p.version(), target + 1), 0, false));
        return batch;
    }

    /**
     * The table's files from the position up to the target (the snapshot a first run starts from,
     * then each version's added files), cut into batches as {@link #nextBatch} cuts them.
     */
    @Override
    public Optional<SourcePlan.Backlog> backlog(ReadLimit limit) {
        int maxFiles = maxFiles(limit);
        long maxBytes = limit.maxBytesPerTrigger().orElse(Long.MAX_VALUE);
        List<Long> sizes = new ArrayList<>();
        Position p = start();
        String range;
        if (p.snapshot()) {
            List<DataFile> files = snapshot(p.version());
            for (long i = p.index(); i < files.size(); i++) {
                sizes.add(files.get((int) i).size());
            }
            range = "version " + p.version() + (p.version() < target ? ".." + target : "");
            p = new Position(p.version() + 1, 0, false);
        } else {
            range = p.version() <= target ? "versions " + p.version() + ".." + target : "";
        }
        for (long v = p.version(); v <= target; v++) {
            List<AddedFile> added = added(v);
            for (long i = v == p.version() ? p.index() : 0; i < added.size(); i++) {
                sizes.add(added.get((int) i).file().size());
            }
        }
        long batches = 0;
        long bytes = 0;
        long inBatch = 0;
        long batchBytes = 0;
        for (long size : sizes) {
            if (inBatch == 0 || inBatch >= maxFiles || batchBytes >= maxBytes) {
                batches++;
                inBatch = 0;
                batchBytes = 0;
            }
            inBatch++;
            batchBytes += size;
            bytes += size;
        }
        return Optional.of(
                new SourcePlan.Backlog(
                        batches,
                        sizes.size(),
                        bytes,
                        -1,
                        range.isEmpty() ? "" : table + " " + range));
    }

    /** The files of the snapshot at {@code version}, in the order a stream reads them. */
    private List<DataFile> snapshot(long version) {
        return snapshots.computeIfAbsent(
                version,
                v -> {
                    List<DataFile> files = new ArrayList<>(delta().snapshotAt(v).files());
                    files.sort(
                            Comparator.comparingLong(DataFile::modificationTime)
                                    .thenComparing(DataFile::path));
                    return files;
                });
    }

    /** The files version {@code version} added; refused if it removes any. */
    private List<AddedFile> added(long version) {
        return entries.computeIfAbsent(
                version,
                v -> {
                    try {
                        return delta().filesAdded(v, v);
                    } catch (IllegalStateException e) {
                        // No restart reads it: the job fails at once, in one line.
                        throw new PermanentFailure(
                                "table '"
                                        + table
                                        + "' cannot be read further as a stream: "
                                        + e.getMessage()
                                        + " Its writer replaced or emptied it (complete mode, a"
                                        + " reset, a recompute). Reset the query that reads it:"
                                        + " its next run starts from the table's current"
                                        + " snapshot.",
                                e);
                    }
                });
    }

    @Override
    public boolean nextBatchIsEmpty() {
        return nextBatch(-1, ReadLimit.none().withMaxFilesPerTrigger(1)).isEmpty();
    }

    @Override
    public void commit(List<DeltaSplit> batch) {
        if (batch.isEmpty()) {
            return;
        }
        long batchId = batch.get(0).batchId();
        Position end = plannedEnds.remove(batchId);
        if (end == null) {
            // A batch read again as the offset log recorded it: it ends after its last file.
            DeltaSplit last = batch.get(batch.size() - 1);
            end = new Position(last.version(), last.index() + 1, last.snapshot());
        }
        next = end;
        commits++;
        entries.keySet().removeIf(v -> v < next.version());
        snapshots.keySet().removeIf(v -> !next.snapshot() || v != next.version());
    }

    @Override
    public Map<String, Object> describeOffsets() {
        Map<String, Object> offsets = new LinkedHashMap<>();
        if (next != null) {
            offsets.put("reservoirVersion", next.version());
            offsets.put("index", next.index() - 1);
            offsets.put("isStartingVersion", next.snapshot());
        }
        return offsets;
    }

    @Override
    public SimpleVersionedSerializer<DeltaSplit> splitSerializer() {
        return new DeltaSplit.Serializer(folder);
    }
}
