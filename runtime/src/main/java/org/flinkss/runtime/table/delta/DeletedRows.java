package org.flinkss.runtime.table.delta;

import java.util.Map;
import java.util.function.LongPredicate;
import java.util.function.Supplier;

/**
 * The rows a table's deletion vectors hide ({@code delta.enableDeletionVectors}, which Spark's
 * {@code DELETE}, {@code UPDATE} and {@code MERGE} use on such a table), by data file. A row of a
 * file is deleted when its position in the file (from 0) is in the file's vector.
 */
final class DeletedRows {

    static final DeletedRows NONE = new DeletedRows(Map.of());

    /**
     * A file's deletion vector, as its {@code add} action describes it.
     *
     * @param cardinality how many rows it hides
     * @param positions reads the positions it holds (from its {@code .bin} file, or inline)
     */
    record Vector(long cardinality, Supplier<LongPredicate> positions) {}

    private final Map<String, Vector> byFile;

    /**
     * @param byFile by the file's path, as the snapshot's {@link DataFile}s name it
     */
    DeletedRows(Map<String, Vector> byFile) {
        this.byFile = Map.copyOf(byFile);
    }

    boolean isEmpty() {
        return byFile.isEmpty();
    }

    /** How many data files have a deletion vector. */
    int files() {
        return byFile.size();
    }

    /** One of the files that have a deletion vector, to name in a message. */
    String someFile() {
        return byFile.keySet().iterator().next();
    }

    /** How many rows of {@code file} its deletion vector hides (0 without one). */
    long count(DataFile file) {
        Vector vector = byFile.get(file.path());
        return vector == null ? 0 : vector.cardinality();
    }

    /** Whether the row at a position of {@code file} is deleted (none without a vector). */
    LongPredicate deleted(DataFile file) {
        Vector vector = byFile.get(file.path());
        return vector == null ? position -> false : vector.positions().get();
    }
}
