package org.flinkss.runtime.ops;

import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;

import com.fasterxml.jackson.databind.node.ObjectNode;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.CheckpointLock;
import org.flinkss.runtime.checkpoint.CheckpointMetadata;
import org.flinkss.runtime.checkpoint.QueryIdentity;
import org.flinkss.runtime.checkpoint.RestorePoints;
import org.flinkss.runtime.checkpoint.WarehouseBinding;
import org.flinkss.runtime.progress.ProgressLog;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.TableOwner;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.time.Watermarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One query's checkpoint ({@code <base>/_cp/<query>}, Spark's {@code checkpointLocation}) as the
 * commands beside its runs see it: whether it exists, the query id and the tables its identity
 * lists, the progress of its batches and the watermark the last one ended with, and its lock, which
 * a command holds so that no run of the query starts meanwhile. A base may be a local folder or on
 * an object store ({@code s3://bucket/prefix}).
 */
public final class QueryCheckpoint {

    /** A query's name as a folder of {@code _cp}: never a path, so nothing outside is reached. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]*");

    private final String query;
    private final CheckpointLayout layout;

    private QueryCheckpoint(String query, CheckpointLayout layout) {
        this.query = query;
        this.layout = layout;
    }

    /** The checkpoint of query {@code query} under a base anywhere: local or an object store. */
    public static QueryCheckpoint of(Path base, String query) {
        return new QueryCheckpoint(checkName(query), CheckpointLayout.of(base, query));
    }

    /** Every query's checkpoint under a base anywhere, by name; none if the base has none. */
    public static List<QueryCheckpoint> allUnder(Path base) throws IOException {
        List<QueryCheckpoint> all = new ArrayList<>();
        for (FileStatus child : Storage.list(CheckpointLayout.allUnder(base))) {
            if (child.isDir()) {
                all.add(
                        new QueryCheckpoint(
                                child.getPath().getName(), new CheckpointLayout(child.getPath())));
            }
        }
        all.sort(Comparator.comparing(QueryCheckpoint::query));
        return all;
    }

    private static String checkName(String query) {
        if (!NAME.matcher(query).matches()) {
            throw new IllegalArgumentException(
                    "'" + query + "' is no query name: a query's checkpoint is a folder of _cp");
        }
        return query;
    }

    /** The query's name: the folder's. */
    public String query() {
        return query;
    }

    /** Whether the checkpoint exists: it has its identity file ({@code metadata.json}). */
    public boolean exists() {
        try {
            return Storage.exists(layout.metadata());
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot read checkpoint " + layout + ": " + e.getMessage(), e);
        }
    }

    /**
     * The query id (Spark's {@code id}, kept across runs).
     *
     * @throws IllegalStateException if the checkpoint holds none
     * @throws UncheckedIOException if its identity cannot be read
     */
    public String queryId() {
        return QueryIdentity.idIn(layout);
    }

    /** Every committed batch's progress, oldest first (Spark's {@code recentProgress}, kept). */
    public List<ObjectNode> progress() {
        return new ProgressLog(layout).all();
    }

    /** The last progress object printed (Spark's {@code lastProgress}); empty if it never ran. */
    public Optional<ObjectNode> lastProgress() {
        return Optional.ofNullable(new ProgressLog(layout).last());
    }

    /**
     * The watermark the last committed batch ended with; {@link Watermarks#NONE} before the first.
     * Windows that end at or before it are closed: the stream will not write them again.
     */
    public long watermark() {
        return new ProgressLog(layout).lastWatermark();
    }

    /**
     * What the checkpoint says of its query ({@link QueryStatus}): its identity, last batch,
     * watermark and restore points. Reads only: a run may hold the checkpoint meanwhile.
     *
     * @throws IllegalArgumentException if the checkpoint does not exist, naming it
     * @throws UncheckedIOException if its identity cannot be read
     */
    public QueryStatus status() {
        Optional<CheckpointMetadata> metadata;
        try {
            metadata = CheckpointMetadata.read(layout);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot read " + layout + "'s metadata.json: " + e.getMessage(), e);
        }
        if (metadata.isEmpty()) {
            throw new IllegalArgumentException(
                    "query '"
                            + query
                            + "' has no checkpoint at "
                            + layout
                            + ": it has not run yet");
        }
        CheckpointMetadata m = metadata.get();
        boolean claimed = m.hasIdentity();
        QueryIdentity identity = claimed ? m.identity() : null;
        List<String> tables = new ArrayList<>();
        if (identity != null) {
            tables.addAll(identity.sinks());
            tables.addAll(identity.records());
        }
        ProgressLog log = new ProgressLog(layout);
        List<ObjectNode> batches = log.all();
        ObjectNode last = batches.isEmpty() ? null : batches.get(batches.size() - 1);
        long watermark = log.lastWatermark();
        List<QueryStatus.RestorePoint> points = new ArrayList<>();
        for (Path point : new RestorePoints(layout).all()) {
            points.add(
                    new QueryStatus.RestorePoint(
                            // Flink names a retained checkpoint chk-N, a savepoint savepoint-...
                            !point.getName().startsWith("chk-"),
                            RestorePoints.shown(point),
                            RestorePoints.timeMillis(point)));
        }
        return new QueryStatus(
                query,
                layout.toString(),
                claimed ? m.queryId() : null,
                identity == null ? List.of() : identity.sources(),
                tables,
                identity == null ? Map.of() : identity.tableColumns(),
                identity == null ? List.of() : identity.stateful(),
                last == null ? -1 : last.path("batchId").asLong(),
                last == null ? null : last.path("timestamp").asText(null),
                last == null ? 0 : last.path("numInputRows").asLong(),
                watermark == Watermarks.NONE ? null : Watermarks.format(watermark),
                points,
                new WarehouseBinding(layout).warehouse().orElse(null),
                identity == null ? Map.of() : identity.conf());
    }

    /**
     * What a table of {@code warehouse} records as its writer when this checkpoint writes it, with
     * query id {@code queryId}.
     */
    public TableOwner owner(String queryId, Warehouse warehouse) {
        return TableOwner.ofCheckpoint(query, queryId, layout, warehouse);
    }

    /**
     * Holds the checkpoint while a command works beside its runs ({@code reset}, {@code
     * recompute}): a run of the query, here or in another process, is refused meanwhile, and the
     * command is refused while a run holds it (naming the run).
     */
    public Lock lock() {
        return new Lock(CheckpointLock.acquire(layout, query));
    }

    /** The checkpoint's place, for messages: a local folder, or its URI. */
    @Override
    public String toString() {
        return layout.toString();
    }

    CheckpointLayout layout() {
        return layout;
    }

    /** A command's hold on a query's checkpoint; closing it lets runs start again. */
    public static final class Lock implements AutoCloseable {
        private final CheckpointLock lock;

        private Lock(CheckpointLock lock) {
            this.lock = lock;
        }

        @Override
        public void close() {
            lock.close();
        }
    }
}
