package org.flinkss.runtime.progress;

/**
 * What one source of an availableNow run is to read, told before its first batch: how many batches
 * its rate limits cut that into, and, as the source counts it, how many files and bytes, or which
 * offsets or table versions. A value of -1 is unknown (a Kafka source counts offsets, not files or
 * bytes). Batches re-read after a restore are counted; data that arrives during the run is not read
 * by it (availableNow), so the plan does not grow.
 *
 * @param query the query's name
 * @param source the source's name in the query
 * @param batches the batches the run will commit for this source, 0 if nothing is new
 * @param files the files (or a table's data files) to read, -1 if the source reads no files
 * @param bytes their size, -1 if unknown
 * @param offsets the Kafka offsets to read, -1 if the source reads no topic
 * @param range which offsets or table versions, as a short text ({@code versions 3..7}); empty when
 *     files say it all
 * @param limit the rate limits, as {@code maxFilesPerTrigger=1}, or {@code no limit}
 */
public record SourcePlan(
        String query,
        String source,
        long batches,
        long files,
        long bytes,
        long offsets,
        String range,
        String limit) {

    /**
     * What a planner finds between its committed position and the run's target ({@code
     * SplitPlanner.backlog}); the enumerator adds the names and the limits.
     */
    public record Backlog(long batches, long files, long bytes, long offsets, String range) {

        /** A file source's backlog. */
        public static Backlog ofFiles(long batches, long files, long bytes) {
            return new Backlog(batches, files, bytes, -1, "");
        }
    }

    /**
     * {@code backlog} of source {@code source} under {@code limit}, as its enumerator sees it (it
     * does not know its query's name: {@link #forQuery}).
     */
    public static SourcePlan of(String source, Backlog backlog, String limit) {
        return new SourcePlan(
                "",
                source,
                backlog.batches(),
                backlog.files(),
                backlog.bytes(),
                backlog.offsets(),
                backlog.range(),
                limit);
    }

    /** This plan, of query {@code name}. */
    public SourcePlan forQuery(String name) {
        return new SourcePlan(name, source, batches, files, bytes, offsets, range, limit);
    }
}
