package org.flinkss.runtime.table.delta;

import java.util.Map;
import java.util.Objects;

/**
 * A Parquet data file of a Delta table, as its {@code add} action records it: where it is, its size
 * and modification time, and its statistics ({@code numRecords}; per column, where the file's
 * footer has them, the minimum, maximum and null count, keyed by column name, valued by Long,
 * Integer, Double, String or, for DATE, Integer days).
 *
 * @param path an absolute URI ({@code file:/...}, {@code s3://...}); inside the table's folder it
 *     is recorded relative to it, as Spark does
 */
public record DataFile(
        String path,
        long size,
        long modificationTime,
        long numRecords,
        Map<String, Object> minValues,
        Map<String, Object> maxValues,
        Map<String, Long> nullCounts) {

    public DataFile {
        Objects.requireNonNull(path, "path");
        minValues = Map.copyOf(minValues);
        maxValues = Map.copyOf(maxValues);
        nullCounts = Map.copyOf(nullCounts);
    }

    /** A file known by its path, size, time and row count only. */
    public static DataFile of(String path, long size, long modificationTime, long numRecords) {
        return new DataFile(path, size, modificationTime, numRecords, Map.of(), Map.of(), Map.of());
    }

    /** The file's name, the last part of its path. */
    public String name() {
        return path.substring(path.lastIndexOf('/') + 1);
    }
}
