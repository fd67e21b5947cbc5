package org.flinkss.runtime.source;

import org.apache.flink.api.common.typeinfo.TypeInformation;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.Serializable;

/**
 * Turns a split into records. Formats decide what a bad record becomes: they never throw for bad
 * data (that would fail the run over and over); they return a record that says what was wrong, so
 * that the query can quarantine it.
 */
public interface RecordFormat<T, S extends WorkSplit> extends Serializable {

    /** Opens the split and skips the {@link WorkSplit#position()} records already emitted. */
    SplitRecordReader<T> open(S split) throws IOException;

    /**
     * The event time of a record in epoch milliseconds, or {@link Long#MIN_VALUE} if it has none.
     */
    long eventTime(T record);

    /** True for a record that stands for bad input (to be quarantined); it still counts as read. */
    default boolean isBad(T record) {
        return false;
    }

    /**
     * A record that stands for a split skipped because its data is gone (a run with {@code
     * --skip-missing-files}), so that the query can keep it in a table; null if the format has none
     * (the skip is then only in the batch's progress and the logs). It is not input: it does not
     * count in {@code numInputRows}.
     */
    @Nullable
    default T skipped(S split, String reason) {
        return null;
    }

    /**
     * Whether the queries that read this format accept {@code --skip-missing-files}, so that the
     * error on a split whose data is gone may advise it; false by default (a Delta table's data
     * file is not skipped: the table would silently lose committed rows).
     */
    default boolean skipsMissingFiles() {
        return false;
    }

    TypeInformation<T> producedType();

    /** Releases what the format keeps open between splits (a reader's clients); it is closing. */
    default void close() {}
}
