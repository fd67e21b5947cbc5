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
}
