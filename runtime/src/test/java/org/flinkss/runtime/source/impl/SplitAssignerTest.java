package org.flinkss.runtime.source.impl;

import org.junit.jupiter.api.Test;

import org.flinkss.runtime.source.ReadOrder;
import org.flinkss.runtime.source.WorkSplit;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/** Which reader owns which split of a batch, under each {@link ReadOrder}. */
class SplitAssignerTest {

    /** A split of a name and a size (-1: unknown). */
    private record Sized(String splitId, long sizeInBytes) implements WorkSplit {
        @Override
        public long batchId() {
            return 0;
        }

        @Override
        public long position() {
            return 0;
        }

        @Override
        public WorkSplit withPosition(long position) {
            return this;
        }

        @Override
        public String describe() {
            return splitId;
        }
    }

    @Test
    void contiguousRunsHoldAboutEqualBytesInThePlannersOrder() {
        // Largest first, as the file planner lists a batch: 900 bytes, then 3 x 300.
        List<Sized> batch =
                List.of(
                        new Sized("a", 900),
                        new Sized("b", 300),
                        new Sized("c", 300),
                        new Sized("d", 300));
        assertThat(SplitAssigner.owners(batch, 2, ReadOrder.CONTIGUOUS))
                .containsOnly(entry("a", 0), entry("b", 1), entry("c", 1), entry("d", 1));
        assertThat(SplitAssigner.owners(batch, 4, ReadOrder.CONTIGUOUS))
                .containsOnly(entry("a", 1), entry("b", 2), entry("c", 3), entry("d", 3));
    }

    @Test
    void contiguousRunsCountSplitsWhenASizeIsUnknown() {
        List<Sized> batch =
                List.of(
                        new Sized("a", 900),
                        new Sized("b", -1),
                        new Sized("c", 300),
                        new Sized("d", 300),
                        new Sized("e", 1));
        assertThat(SplitAssigner.owners(batch, 2, ReadOrder.CONTIGUOUS))
                .containsOnly(
                        entry("a", 0), entry("b", 0), entry("c", 1), entry("d", 1), entry("e", 1));
    }

    @Test
    void moreReadersThanSplitsLeaveSomeWithout() {
        List<Sized> batch = List.of(new Sized("a", 10), new Sized("b", 10));
        assertThat(SplitAssigner.owners(batch, 4, ReadOrder.CONTIGUOUS))
                .containsOnly(entry("a", 1), entry("b", 3));
        assertThat(SplitAssigner.owners(List.of(new Sized("a", 0)), 2, ReadOrder.CONTIGUOUS))
                .containsOnly(entry("a", 1));
    }

    @Test
    void oneReaderOwnsEverySplitAndAnyReaderNone() {
        List<Sized> batch = List.of(new Sized("a", 10), new Sized("b", 10));
        assertThat(SplitAssigner.owners(batch, 3, ReadOrder.ONE_READER))
                .containsOnly(entry("a", 0), entry("b", 0));
        assertThat(SplitAssigner.owners(batch, 3, ReadOrder.ANY_READER)).isEmpty();
    }

    @Test
    void aReaderTakesItsNextSplitInOrderAndNothingOfAnothersRun() {
        EnumeratorState.InFlight<Sized> batch = new EnumeratorState.InFlight<>();
        batch.batchId = 4;
        batch.splits =
                List.of(new Sized("a", 1), new Sized("b", 1), new Sized("c", 1), new Sized("d", 1));
        batch.unassigned = new ArrayList<>(batch.splits);
        SplitAssigner<Sized> assigner = new SplitAssigner<>(ReadOrder.CONTIGUOUS);

        assertThat(assigner.take(batch, 1, 2)).extracting(Sized::splitId).isEqualTo("c");
        assertThat(assigner.take(batch, 1, 2)).extracting(Sized::splitId).isEqualTo("d");
        assertThat(assigner.take(batch, 1, 2)).isNull();
        assertThat(assigner.take(batch, 0, 2)).extracting(Sized::splitId).isEqualTo("a");
        assertThat(batch.unassigned).extracting(Sized::splitId).containsExactly("b");
    }

    /** A partition's range in one real-time step: the next step's split of it continues it. */
    private record Step(String partition, long batchId) implements WorkSplit {
        @Override
        public String splitId() {
            return partition + "@" + batchId;
        }

        @Override
        public long position() {
            return 0;
        }

        @Override
        public WorkSplit withPosition(long position) {
            return this;
        }

        @Override
        public String describe() {
            return splitId();
        }

        @Override
        public String continuedBy() {
            return partition;
        }
    }

    private static EnumeratorState.InFlight<Step> step(long batchId, String... partitions) {
        EnumeratorState.InFlight<Step> batch = new EnumeratorState.InFlight<>();
        batch.batchId = batchId;
        List<Step> splits = new ArrayList<>();
        for (String p : partitions) {
            splits.add(new Step(p, batchId));
        }
        batch.splits = splits;
        batch.unassigned = new ArrayList<>(splits);
        return batch;
    }

    @Test
    void realTimeStepsGiveEachPartitionToTheSameReaderEveryStepAllAtOnce() {
        SplitAssigner<Step> assigner = new SplitAssigner<>(ReadOrder.ANY_READER, true);

        // Step 1: three partitions of a topic over two readers, each reader's share at once.
        EnumeratorState.InFlight<Step> first = step(7, "t-0", "t-1", "t-2");
        List<Step> reader1 = assigner.takeFor(first, 1, 2);
        List<Step> reader0 = assigner.takeFor(first, 0, 2);
        assertThat(reader1).extracting(Step::partition).containsExactly("t-0", "t-2");
        assertThat(reader0).extracting(Step::partition).containsExactly("t-1");
        assertThat(first.unassigned).isEmpty();

        // Step 2: reader 0 asks first, and still gets only its own partition.
        EnumeratorState.InFlight<Step> second = step(8, "t-0", "t-1", "t-2");
        assertThat(assigner.takeFor(second, 0, 2))
                .extracting(Step::partition)
                .containsExactly("t-1");
        assertThat(assigner.takeFor(second, 1, 2))
                .extracting(Step::partition)
                .containsExactly("t-0", "t-2");
    }

    @Test
    void microBatchesStillHandOutOneSplitAtATimeToWhicheverReaderAsks() {
        SplitAssigner<Step> assigner = new SplitAssigner<>(ReadOrder.ANY_READER, false);
        EnumeratorState.InFlight<Step> batch = step(3, "t-0", "t-1", "t-2");

        assertThat(assigner.takeFor(batch, 1, 2))
                .extracting(Step::partition)
                .containsExactly("t-0");
        assertThat(assigner.takeFor(batch, 1, 2))
                .extracting(Step::partition)
                .containsExactly("t-1");
        assertThat(batch.unassigned).extracting(Step::partition).containsExactly("t-2");
    }
}
