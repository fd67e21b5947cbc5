package org.flinkss.runtime.source.impl;

import org.flinkss.runtime.time.WatermarkPolicy;
import org.flinkss.runtime.time.Watermarks;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The watermark nodes of one micro-batch source (Spark's {@code withWatermark} nodes on it) and
 * their watermarks in this run of the query: the enumerator's half of Spark's {@code
 * WatermarkTracker}.
 */
final class WatermarkNodes {

    /** The delay of each watermark node of the source, in the order the readers count them. */
    private final List<Long> delays;

    /**
     * Per watermark node, its watermark in this run of the query (Spark's {@code WatermarkTracker}
     * map, which lives in the running query: a restarted query starts it empty, and every node then
     * holds the query's watermark until a batch brings it rows).
     */
    private final Map<Integer, Long> watermarks = new HashMap<>();

    /** How the query's watermark is chosen from the nodes' ({@code --watermark-policy}). */
    private final WatermarkPolicy policy;

    WatermarkNodes(List<Long> delays, WatermarkPolicy policy) {
        this.delays = List.copyOf(delays);
        this.policy = policy;
    }

    /** True for a source without nodes: it has no watermark. */
    boolean none() {
        return delays.isEmpty();
    }

    int size() {
        return delays.size();
    }

    /**
     * Spark's {@code WatermarkTracker.updateWatermark} at the end of a batch: each node that rows
     * reached moves to {@code max(event time) - delay} if that is later than where it was, a node
     * that no row has reached in this run counts as 0 (the epoch), and the query's watermark moves
     * to the minimum across the nodes (the policy's choice) if that is later than {@code stored},
     * where it is (it starts at the epoch too, so it never moves back and never below 0). A source
     * without nodes has no watermark. Under {@link WatermarkPolicy#MAX} the maximum is taken
     * instead: a node without rows, at the epoch, then holds nothing back.
     */
    long next(BatchStats total, long stored) {
        if (delays.isEmpty()) {
            return Long.MIN_VALUE;
        }
        for (int n = 0; n < delays.size(); n++) {
            long max = total.nodeMaxEventTime(n);
            if (max != Long.MIN_VALUE) {
                watermarks.merge(n, max - delays.get(n), Math::max);
            } else {
                watermarks.putIfAbsent(n, 0L);
            }
        }
        return Math.max(policy.choose(watermarks.values()), Watermarks.inForce(stored));
    }

    /**
     * The watermark a reader starts from, before any record: the one in force, {@code stored}. For
     * a source with watermark nodes that is at least Spark's initial watermark, the epoch, which
     * the readers send before the first batch too, so that its rows at or before 1970-01-01 are
     * late (Spark's first batch runs with {@code batchWatermarkMs = 0}); a source without nodes
     * sends none.
     */
    long starting(long stored) {
        return delays.isEmpty() ? stored : Watermarks.inForce(stored);
    }

    /** Each node's watermark, by node, for the log. */
    Map<Integer, Long> byNode() {
        return new TreeMap<>(watermarks);
    }
}
