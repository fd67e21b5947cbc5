package org.flinkss.runtime.operators;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class HeapBudgetTest {

    private static final long GIB = 1L << 30;

    @Test
    void anEighthOfTheHeapSharedByTheSubtasksWithinBounds() {
        // The embedded cluster on a 24 GiB machine: a 6 GiB heap, parallelism 2.
        assertThat(HeapBudget.entries(6 * GIB, 2)).isEqualTo(3_145_728);
        // A TaskManager of flink-conf/config.yaml: about 0.65 GiB of heap.
        assertThat(HeapBudget.entries(665L << 20, 2)).isEqualTo(340_480);
        assertThat(HeapBudget.entries(64L << 20, 8)).isEqualTo(16_384);
        assertThat(HeapBudget.entries(64 * GIB, 1)).isEqualTo(4_194_304);
    }
}
