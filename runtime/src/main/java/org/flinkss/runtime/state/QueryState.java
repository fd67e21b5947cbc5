package org.flinkss.runtime.state;

import org.apache.flink.core.fs.Path;
import org.apache.flink.types.Row;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.RowValues;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * A query's state as its checkpoint holds it, read without running the query (Spark's {@code
 * statestore} source): the restore point the next run would restore, or the one of a batch the
 * checkpoint folder still holds; the operators in its metadata with their sizes; a keyed operator's
 * state as rows. Read-only: it takes no lock and writes nothing, and reads only completed restore
 * points, so a running query is fine. Works on any storage Flink's file systems reach ({@code
 * s3://} too).
 */
public final class QueryState {

    private final String query;
    private final CheckpointLayout layout;

    private QueryState(String query, CheckpointLayout layout) {
        this.query = query;
        this.layout = layout;
    }

    /**
     * The state of query {@code query} under {@code base} (a name its caller checked: a folder of
     * {@code _cp}, never a path).
     *
     * @throws IllegalArgumentException if the query has no checkpoint there
     */
    public static QueryState of(Path base, String query) {
        CheckpointLayout layout = CheckpointLayout.of(base, query);
        if (!exists(layout)) {
            throw new IllegalArgumentException(
                    "query '"
                            + query
                            + "' has no checkpoint at "
                            + layout
                            + ": run it first (run "
                            + query
                            + ")");
        }
        return new QueryState(query, layout);
    }

    private static boolean exists(CheckpointLayout layout) {
        try {
            return Storage.exists(layout.metadata());
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot read checkpoint " + layout + ": " + e.getMessage(), e);
        }
    }

    /** Every restore point the checkpoint holds, with its batch, oldest first. */
    public List<StatePoint> points() {
        return PointBatches.of(layout);
    }

    /**
     * The restore point to read: the one the next run would restore (the newest complete checkpoint
     * or savepoint), or the newest that holds batch {@code batch}.
     *
     * @throws IllegalArgumentException if there is none yet, or none of that batch, naming the
     *     batches there are
     */
    public StatePoint point(@Nullable Long batch) {
        List<StatePoint> points = points();
        if (points.isEmpty()) {
            throw new IllegalArgumentException(
                    "query '"
                            + query
                            + "' has no complete checkpoint or savepoint at "
                            + layout
                            + ": run it first (run "
                            + query
                            + ")");
        }
        if (batch == null) {
            return points.get(points.size() - 1);
        }
        StatePoint found = null;
        TreeSet<Long> batches = new TreeSet<>();
        for (StatePoint p : points) {
            batches.add(p.batch());
            if (p.batch() == batch) {
                found = p;
            }
        }
        if (found == null) {
            throw new IllegalArgumentException(
                    "no restore point of batch "
                            + batch
                            + " in "
                            + layout
                            + ": it holds batch"
                            + (batches.size() == 1 ? " " : "es ")
                            + String.join(", ", batches.stream().map(String::valueOf).toList()));
        }
        return found;
    }

    /**
     * The operators with state in the point's metadata, named by {@code uids} where one is theirs.
     *
     * @throws IllegalStateException if the metadata is damaged, naming the file
     */
    public List<OperatorState> operators(StatePoint point, Collection<String> uids) {
        return MetadataReader.operators(point, uids);
    }

    /**
     * A keyed operator's state as rows, sorted by every column.
     *
     * @throws IllegalStateException if the point cannot be read, naming it
     */
    public <K> List<List<Object>> rows(StatePoint point, KeyedStateView<K> view) {
        List<List<Object>> rows = new ArrayList<>();
        for (Row row : KeyedRows.read(point, view)) {
            List<Object> values = new ArrayList<>(row.getArity());
            for (int i = 0; i < row.getArity(); i++) {
                values.add(row.getField(i));
            }
            rows.add(values);
        }
        rows.sort(RowValues.ORDER);
        return rows;
    }

    /** The checkpoint's place, for messages. */
    @Override
    public String toString() {
        return layout.toString();
    }
}
