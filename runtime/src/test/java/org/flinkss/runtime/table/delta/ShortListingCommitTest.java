package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.flinkss.runtime.table.delta.TestRows.EVENTS;
import static org.flinkss.runtime.table.delta.TestRows.events;

/**
 * A commit that loses a race and then reads a log listing that misses the winner (an object store's
 * listing may) is made again by a new transaction, which lists the log anew, and its {@code txn}
 * check keeps it from writing the batch twice: {@link KernelInternals#isShortListing} as {@link
 * DeltaTable#commit} uses it.
 */
class ShortListingCommitTest {

    @TempDir java.nio.file.Path dir;

    @Test
    void aCommitWhoseConflictListingCameBackShortIsCommittedAgainOnce() throws Exception {
        DeltaTable other = DeltaTable.forPath(dir.resolve("t").toString());
        other.create(EVENTS, Map.of());
        other.append(
                "other", 0, List.of(DataFiles.write(new Path(other.path()), EVENTS, events(0, 3))));
        // Step 1: listing 1 (the transaction's snapshot) and listing 2 (the conflict's winners)
        // miss version 1; every listing after is whole.
        ShortListingFileIO io = new ShortListingFileIO();
        io.hide(List.of(Set.of(1L), Set.of(1L), Set.of()));
        DeltaTable table = DeltaTable.forPath(other.path(), DeltaStorage.ofEngine(io.engine()));

        // Step 2: the commit goes for version 1, finds it taken, lists no winner, and is made
        // again at version 2.
        CommitResult result =
                table.append(
                        "q",
                        0,
                        List.of(DataFiles.write(new Path(table.path()), EVENTS, events(100, 5))));

        assertThat(io.hiddenFiles()).as("files of version 1 the listings left out").isPositive();
        assertThat(result.committed()).isTrue();
        assertThat(result.version()).isEqualTo(2);
        assertThat(other.version()).isEqualTo(2);
        assertThat(other.snapshot().count()).isEqualTo(8);
        assertThat(other.committedBatch("q")).hasValue(0);
        assertThat(other.history(3))
                .extracting(HistoryEntry::appId)
                .containsExactly("q", "other", null);
    }
}
