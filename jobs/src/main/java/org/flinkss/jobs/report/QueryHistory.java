package org.flinkss.jobs.report;

import javax.annotation.Nullable;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * A query's committed batches, oldest first, and the summary the report gives of them.
 *
 * @param name the query (its checkpoint folder's name)
 * @param batches its batches, at least one
 */
public record QueryHistory(String name, List<Batch> batches) {

    public QueryHistory {
        batches = List.copyOf(batches);
        if (batches.isEmpty()) {
            throw new IllegalArgumentException("query '" + name + "' has no batch to report");
        }
    }

    public Batch last() {
        return batches.get(batches.size() - 1);
    }

    /** Rows read by all batches. */
    public long rows() {
        return batches.stream().mapToLong(Batch::inputRows).sum();
    }

    /** When the last batch was committed. */
    @Nullable
    public Instant lastRun() {
        return last().time();
    }

    /** The sum over its batches of a measure it has, or {@code null} if it has not. */
    @Nullable
    public Long total(Function<Batch, Long> measure) {
        return batches.stream()
                .map(measure)
                .filter(Objects::nonNull)
                .reduce(Long::sum)
                .orElse(null);
    }

    /** Whether any batch has the measure. */
    public boolean has(Function<Batch, ?> measure) {
        return batches.stream().map(measure).anyMatch(Objects::nonNull);
    }
}
