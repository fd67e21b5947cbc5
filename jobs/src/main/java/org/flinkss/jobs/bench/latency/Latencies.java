package org.flinkss.jobs.bench.latency;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * End-to-end latencies in milliseconds, collected one by one with the moment each record was sent,
 * summarized as p50, p99 and max by the nearest-rank method (the p-th percentile is the smallest
 * value that at least p% of the values are at or below): over everything, or second by second of
 * send time ({@link #bySecond}), which shows a run's start apart from its steady state.
 */
public final class Latencies {

    private long[] sent = new long[1024];
    private long[] values = new long[1024];
    private int count;

    /** Adds the latency of a record sent at {@code sentMillis}. */
    public void add(long sentMillis, long millis) {
        if (count == values.length) {
            values = Arrays.copyOf(values, count * 2);
            sent = Arrays.copyOf(sent, count * 2);
        }
        sent[count] = sentMillis;
        values[count++] = millis;
    }

    /** How many latencies were added. */
    public int count() {
        return count;
    }

    /** p50, p99 and max of what was added; all -1 when nothing was. */
    public Summary summary() {
        return summarize(Arrays.copyOf(values, count));
    }

    /**
     * The summary of each second of send time, counted from {@code fromMillis}: key 0 holds the
     * records sent in {@code [fromMillis, fromMillis + 1000)}, and so on; records sent before
     * {@code fromMillis} are left out.
     */
    public Map<Long, Summary> bySecond(long fromMillis) {
        Map<Long, Latencies> seconds = new TreeMap<>();
        for (int i = 0; i < count; i++) {
            if (sent[i] >= fromMillis) {
                seconds.computeIfAbsent((sent[i] - fromMillis) / 1000, second -> new Latencies())
                        .add(sent[i], values[i]);
            }
        }
        Map<Long, Summary> summaries = new TreeMap<>();
        seconds.forEach((second, latencies) -> summaries.put(second, latencies.summary()));
        return summaries;
    }

    private static Summary summarize(long[] latencies) {
        if (latencies.length == 0) {
            return new Summary(0, -1, -1, -1, -1);
        }
        Arrays.sort(latencies);
        return new Summary(
                latencies.length,
                latencies[0],
                percentile(latencies, 50),
                percentile(latencies, 99),
                latencies[latencies.length - 1]);
    }

    /** The nearest-rank percentile of sorted values: the value at rank ceil(p / 100 * n). */
    static long percentile(long[] sorted, int p) {
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(rank, 1) - 1];
    }

    /** What {@link #summary()} gives: how many values and their min, p50, p99 and max. */
    public record Summary(int count, long min, long p50, long p99, long max) {}
}
