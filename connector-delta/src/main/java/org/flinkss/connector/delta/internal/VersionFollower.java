package org.flinkss.connector.delta.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.core.fs.Path;
import org.apache.flink.util.FlinkRuntimeException;

import org.flinkss.runtime.table.delta.AddedFile;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DeltaTable;

import javax.annotation.Nullable;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The enumerator of a {@code DeltaStreamSource}: it follows a table's log version by version, as
 * Spark's Delta streaming source does, and hands each added data file to a reader as one split.
 *
 * <p>Every {@code interval} it looks for versions after the last one it has read (one status call
 * per new log entry, {@link DeltaTable#latestVersionFrom}), reads the files those versions added
 * from their log entries only (never by listing the folder, which holds files no version
 * references), and queues them in log order. A version that removes data files (an overwrite, a
 * {@code MERGE}, a {@code DELETE}, a compaction) fails the job with its version and operation
 * named: a stream reads tables that are only appended to, as Spark's Delta source does without
 * {@code skipChangeCommits}.
 *
 * <p>A checkpoint keeps the next version to look for and the queued splits ({@link
 * StreamPosition}); a split a reader holds is in the reader's state. So after a failure each file
 * is read once, from where its reader's last checkpoint left it.
 */
@Internal
public final class VersionFollower implements SplitEnumerator<FileSourceSplit, StreamPosition> {

    private final SplitEnumeratorContext<FileSourceSplit> context;
    private final String path;
    private final long intervalMillis;
    private final boolean changeFeed;
    private final Deque<FileSourceSplit> pending;
    private final Set<Integer> waiting = new LinkedHashSet<>();

    /**
     * Written in the coordinator's thread; read by the discovery thread too, each discovery
     * carrying the value it started from, so that one taken in late is recognized and dropped.
     */
    private volatile long nextVersion;

    /** Opened by the discovery thread only. */
    @Nullable private DeltaTable table;

    public VersionFollower(
            SplitEnumeratorContext<FileSourceSplit> context,
            String path,
            long intervalMillis,
            StreamPosition position) {
        this(context, path, intervalMillis, position, false);
    }

    /**
     * @param changeFeed each version is one split of its change data feed ({@link
     *     ChangeFeedBulkFormat}), whatever it adds or removes, instead of its added files
     */
    public VersionFollower(
            SplitEnumeratorContext<FileSourceSplit> context,
            String path,
            long intervalMillis,
            StreamPosition position,
            boolean changeFeed) {
        this.context = context;
        this.path = path;
        this.intervalMillis = intervalMillis;
        this.changeFeed = changeFeed;
        this.nextVersion = position.nextVersion();
        this.pending = new ArrayDeque<>(position.pending());
    }

    /** What one look at the log found: the versions {@code from} to {@code to} and their files. */
    private record Discovery(long from, long to, List<FileSourceSplit> splits) {}

    @Override
    public void start() {
        context.callAsync(this::discover, this::onDiscovered, 0, intervalMillis);
    }

    private Discovery discover() {
        long from = nextVersion;
        if (table == null) {
            table = DeltaTable.forPath(path);
        }
        long latest = table.latestVersionFrom(from - 1);
        if (latest < from) {
            return new Discovery(from, from - 1, List.of());
        }
        List<FileSourceSplit> splits = new ArrayList<>();
        if (changeFeed) {
            for (long v = from; v <= latest; v++) {
                splits.add(ChangeFeedBulkFormat.changes(path, v));
            }
            return new Discovery(from, latest, splits);
        }
        for (AddedFile added : table.filesAdded(from, latest)) {
            splits.add(split(added));
        }
        return new Discovery(from, latest, splits);
    }

    /** One split per file, named by its version and place in it: unique across the stream. */
    static FileSourceSplit split(AddedFile added) {
        DataFile file = added.file();
        return new FileSourceSplit(
                "v" + added.version() + "-" + added.index(),
                new Path(file.path()),
                0,
                file.size(),
                file.modificationTime(),
                file.size());
    }

    private void onDiscovered(Discovery found, Throwable error) {
        if (error != null) {
            // Fails the job: a version that removes data, or a log that cannot be read.
            throw new FlinkRuntimeException(
                    "Delta stream source for '" + path + "': " + error.getMessage(), error);
        }
        if (found.from() != nextVersion || found.to() < found.from()) {
            // Nothing new, or a look that started before the previous one was taken in.
            return;
        }
        pending.addAll(found.splits());
        nextVersion = found.to() + 1;
        assign();
    }

    private void assign() {
        var readers = context.registeredReaders();
        var it = waiting.iterator();
        while (it.hasNext() && !pending.isEmpty()) {
            int reader = it.next();
            it.remove();
            if (readers.containsKey(reader)) {
                context.assignSplit(pending.poll(), reader);
            }
        }
    }

    @Override
    public void handleSplitRequest(int subtaskId, @Nullable String requesterHostname) {
        waiting.add(subtaskId);
        assign();
    }

    @Override
    public void addSplitsBack(List<FileSourceSplit> splits, int subtaskId) {
        // A reader failed before a checkpoint took its splits: they are read again, first.
        for (int i = splits.size() - 1; i >= 0; i--) {
            pending.addFirst(splits.get(i));
        }
        assign();
    }

    @Override
    public void addReader(int subtaskId) {
        // A reader asks for its first split itself.
    }

    @Override
    public StreamPosition snapshotState(long checkpointId) {
        return new StreamPosition(nextVersion, new ArrayList<>(pending));
    }

    @Override
    public void close() {}
}
