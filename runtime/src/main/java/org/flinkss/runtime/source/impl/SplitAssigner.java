package org.flinkss.runtime.source.impl;

import org.apache.flink.annotation.Internal;

import org.flinkss.runtime.source.ReadOrder;
import org.flinkss.runtime.source.WorkSplit;

import javax.annotation.Nullable;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Hands a batch's splits to readers under a {@link ReadOrder}. Which reader owns a split is a
 * function of the batch's splits, in the planner's order, and the parallelism alone, so a job
 * restored in the middle of a batch gives every split left to the reader it had.
 */
@Internal
final class SplitAssigner<S extends WorkSplit> {

    private final ReadOrder order;

    /**
     * The owner of each split of batch {@link #batchId}; empty for {@link ReadOrder#ANY_READER}.
     */
    private Map<String, Integer> owners = Map.of();

    private long batchId = -1;

    SplitAssigner(ReadOrder order) {
        this.order = order;
    }

    /**
     * The next unassigned split of {@code batch} that {@code reader} may read, taken off its
     * unassigned list; null if none is left for it.
     */
    @Nullable
    S take(EnumeratorState.InFlight<S> batch, int reader, int parallelism) {
        if (batchId != batch.batchId) {
            owners = owners(batch.splits, parallelism, order);
            batchId = batch.batchId;
        }
        for (int i = 0; i < batch.unassigned.size(); i++) {
            Integer owner = owners.get(batch.unassigned.get(i).splitId());
            if (owner == null || owner == reader) {
                return batch.unassigned.remove(i);
            }
        }
        return null;
    }

    /** Each split's reader by its id; no entry for a split any reader may read. */
    static Map<String, Integer> owners(
            List<? extends WorkSplit> splits, int parallelism, ReadOrder order) {
        Map<String, Integer> owners = new HashMap<>();
        switch (order) {
            case ONE_READER -> splits.forEach(s -> owners.put(s.splitId(), 0));
            case CONTIGUOUS -> {
                long[] weights = weights(splits);
                double total = Arrays.stream(weights).sum();
                long before = 0;
                for (int i = 0; i < splits.size(); i++) {
                    // The reader whose share holds the middle of the split: runs of about equal
                    // weight, in order, each split in exactly one.
                    double middle = (before + weights[i] / 2.0) / total;
                    owners.put(
                            splits.get(i).splitId(),
                            Math.min(parallelism - 1, (int) (middle * parallelism)));
                    before += weights[i];
                }
            }
            case ANY_READER -> {}
        }
        return owners;
    }

    /** Each split's bytes if every split knows its size and they add up to more than 0, else 1. */
    private static long[] weights(List<? extends WorkSplit> splits) {
        long[] weights = new long[splits.size()];
        long total = 0;
        for (int i = 0; i < weights.length; i++) {
            long size = splits.get(i).sizeInBytes();
            if (size < 0) {
                total = 0;
                break;
            }
            weights[i] = size;
            total += size;
        }
        if (total <= 0) {
            Arrays.fill(weights, 1);
        }
        return weights;
    }
}
