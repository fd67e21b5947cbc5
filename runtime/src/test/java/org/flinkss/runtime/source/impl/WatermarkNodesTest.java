package org.flinkss.runtime.source.impl;

import org.junit.jupiter.api.Test;

import org.flinkss.runtime.time.WatermarkPolicy;
import org.flinkss.runtime.time.Watermarks;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spark's WatermarkTracker.updateWatermark, batch by batch, under both policies: two nodes (views
 * and buys) with a 10-minute delay, as the course's view-then-buy.
 */
class WatermarkNodesTest {

    private static final long DELAY = 600_000;
    private static final long MINUTE = 60_000;

    /** A batch whose views reach {@code views} at the latest and buys {@code buys} (or none). */
    private static BatchStats batch(Long views, Long buys) {
        BatchStats stats = BatchStats.empty();
        if (views != null) {
            stats.reach(0, views);
        }
        if (buys != null) {
            stats.reach(1, buys);
        }
        return stats;
    }

    @Test
    void maxFollowsTheFastestNodeWhereMinWaitsForTheSlowest() {
        WatermarkNodes min = new WatermarkNodes(List.of(DELAY, DELAY), WatermarkPolicy.MIN);
        WatermarkNodes max = new WatermarkNodes(List.of(DELAY, DELAY), WatermarkPolicy.MAX);
        long minWatermark = Watermarks.NONE;
        long maxWatermark = Watermarks.NONE;

        // Batch 0: views up to minute 30, no buy yet: the buys' node sits at the epoch.
        minWatermark = min.next(batch(30 * MINUTE, null), minWatermark);
        maxWatermark = max.next(batch(30 * MINUTE, null), maxWatermark);
        assertThat(minWatermark).isEqualTo(0);
        assertThat(maxWatermark).isEqualTo(20 * MINUTE);

        // Batch 1: buys up to minute 15, views up to minute 40.
        minWatermark = min.next(batch(40 * MINUTE, 15 * MINUTE), minWatermark);
        maxWatermark = max.next(batch(40 * MINUTE, 15 * MINUTE), maxWatermark);
        assertThat(minWatermark).isEqualTo(5 * MINUTE);
        assertThat(maxWatermark).isEqualTo(30 * MINUTE);

        // Batch 2: only older rows: no node moves back, nor does either query watermark.
        minWatermark = min.next(batch(10 * MINUTE, 12 * MINUTE), minWatermark);
        maxWatermark = max.next(batch(10 * MINUTE, 12 * MINUTE), maxWatermark);
        assertThat(minWatermark).isEqualTo(5 * MINUTE);
        assertThat(maxWatermark).isEqualTo(30 * MINUTE);
        assertThat(max.byNode()).containsEntry(0, 30 * MINUTE).containsEntry(1, 5 * MINUTE);
    }

    @Test
    void aRestoredRunStartsFromTheStoredWatermarkUnderEitherPolicy() {
        // The node map lives in the running query: after a restart it is empty, and the query's
        // watermark, carried in the checkpoint, never goes back below the stored one.
        WatermarkNodes max = new WatermarkNodes(List.of(DELAY, DELAY), WatermarkPolicy.MAX);

        assertThat(max.next(batch(null, 25 * MINUTE), 30 * MINUTE)).isEqualTo(30 * MINUTE);
        assertThat(max.next(batch(null, 45 * MINUTE), 30 * MINUTE)).isEqualTo(35 * MINUTE);
    }
}
