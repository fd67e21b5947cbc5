package org.flinkss.testutils;

import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

/**
 * The embedded cluster every ITCase runs on: one TaskManager with enough slots for parallelism 4.
 */
public final class MiniClusters {

    private MiniClusters() {}

    public static MiniClusterExtension create() {
        return new MiniClusterExtension(
                new MiniClusterResourceConfiguration.Builder()
                        .setNumberTaskManagers(1)
                        .setNumberSlotsPerTaskManager(4)
                        .build());
    }
}
