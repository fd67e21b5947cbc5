package org.flinkss.runtime.source;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * How much one micro-batch of a source may read: Spark's rate limits, each unset (no limit) or a
 * positive number, refused otherwise with Spark's message. One value carries all three from the
 * run's options to every source's planner, and each planner applies those that mean something for
 * it:
 *
 * <ul>
 *   <li>{@code maxFilesPerTrigger}: at most this many files (a Kafka source: partitions) per batch;
 *   <li>{@code maxBytesPerTrigger}: the landing file source takes files while the batch stays
 *       within this many bytes, one file at least (Spark's file source); a table source takes files
 *       until the batch has this many bytes, the file that reaches it included (Delta's soft
 *       limit);
 *   <li>{@code maxOffsetsPerTrigger}: a Kafka source reads at most this many offsets per batch,
 *       split over partitions pro rata.
 * </ul>
 *
 * <p>An availableNow run honours them: a backlog is read in several batches, each committed on its
 * own.
 */
public final class ReadLimit implements Serializable {

    private static final long serialVersionUID = 1L;

    private static final long UNSET = 0;

    private static final ReadLimit NONE = new ReadLimit(UNSET, UNSET, UNSET);

    private final long maxFiles;
    private final long maxBytes;
    private final long maxOffsets;

    private ReadLimit(long maxFiles, long maxBytes, long maxOffsets) {
        this.maxFiles = maxFiles;
        this.maxBytes = maxBytes;
        this.maxOffsets = maxOffsets;
    }

    /** No limit: a batch reads everything available. */
    public static ReadLimit none() {
        return NONE;
    }

    /**
     * This limit with at most {@code max} files (or partitions) per batch.
     *
     * @throws IllegalArgumentException unless {@code max} is positive
     */
    public ReadLimit withMaxFilesPerTrigger(int max) {
        return new ReadLimit(positive("maxFilesPerTrigger", max), maxBytes, maxOffsets);
    }

    /**
     * This limit with at most {@code max} bytes of files per batch (but one file at least).
     *
     * @throws IllegalArgumentException unless {@code max} is positive
     */
    public ReadLimit withMaxBytesPerTrigger(long max) {
        return new ReadLimit(maxFiles, positive("maxBytesPerTrigger", max), maxOffsets);
    }

    /**
     * This limit with at most {@code max} Kafka offsets per batch.
     *
     * @throws IllegalArgumentException unless {@code max} is positive
     */
    public ReadLimit withMaxOffsetsPerTrigger(long max) {
        return new ReadLimit(maxFiles, maxBytes, positive("maxOffsetsPerTrigger", max));
    }

    /** Spark's own words for a limit that is not a positive number. */
    private static long positive(String option, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(
                    "Invalid value '"
                            + value
                            + "' for option '"
                            + option
                            + "', must be a positive integer");
        }
        return value;
    }

    public OptionalInt maxFilesPerTrigger() {
        return maxFiles == UNSET ? OptionalInt.empty() : OptionalInt.of((int) maxFiles);
    }

    public OptionalLong maxBytesPerTrigger() {
        return maxBytes == UNSET ? OptionalLong.empty() : OptionalLong.of(maxBytes);
    }

    public OptionalLong maxOffsetsPerTrigger() {
        return maxOffsets == UNSET ? OptionalLong.empty() : OptionalLong.of(maxOffsets);
    }

    /** The files (or partitions) a batch may take: {@code maxFilesPerTrigger}, else no limit. */
    public int maxUnits() {
        return maxFiles == UNSET ? Integer.MAX_VALUE : (int) maxFiles;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ReadLimit)) {
            return false;
        }
        ReadLimit other = (ReadLimit) o;
        return maxFiles == other.maxFiles
                && maxBytes == other.maxBytes
                && maxOffsets == other.maxOffsets;
    }

    @Override
    public int hashCode() {
        return Objects.hash(maxFiles, maxBytes, maxOffsets);
    }

    @Override
    public String toString() {
        List<String> set = new ArrayList<>();
        maxFilesPerTrigger().ifPresent(n -> set.add("maxFilesPerTrigger=" + n));
        maxBytesPerTrigger().ifPresent(n -> set.add("maxBytesPerTrigger=" + n));
        maxOffsetsPerTrigger().ifPresent(n -> set.add("maxOffsetsPerTrigger=" + n));
        return set.isEmpty() ? "no limit" : String.join(", ", set);
    }
}
