package org.flinkss.jobs.bench.latency;

import java.util.Arrays;

/**
 * End-to-end latencies in milliseconds, collected one by one, summarized as p50, p99 and max by the
 * nearest-rank method (the p-th percentile is the smallest value that at least p% of the values are
 * at or below).
 */
public final class Latencies {

    private long[] values = new long[1024];
    private int count;

    /** Adds one latency. */
    public void add(long millis) {
        if (count == values.length) {
            values = Arrays.copyOf(values, count * 2);
        }
        values[count++] = millis;
    }

    /** How many latencies were added. */
    public int count() {
        return count;
    }

    /** p50, p99 and max of what was added; all -1 when nothing was. */
    public Summary summary() {
        if (count == 0) {
            return new Summary(0, -1, -1, -1, -1);
        }
        long[] sorted = Arrays.copyOf(values, count);
        Arrays.sort(sorted);
        return new Summary(
                count,
                sorted[0],
                percentile(sorted, 50),
                percentile(sorted, 99),
                sorted[count - 1]);
    }

    /** The nearest-rank percentile of sorted values: the value at rank ceil(p / 100 * n). */
    static long percentile(long[] sorted, int p) {
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(rank, 1) - 1];
    }

    /** What {@link #summary()} gives: how many values and their min, p50, p99 and max. */
    public record Summary(int count, long min, long p50, long p99, long max) {}
}
