package org.flinkss.runtime.source.delta;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.PermanentFailure;
import org.flinkss.runtime.sink.delta.ChangeSetBytes;
import org.flinkss.runtime.sink.delta.CompleteCommit;
import org.flinkss.runtime.sink.delta.MergeCommit;
import org.flinkss.runtime.sink.delta.TableCommit;
import org.flinkss.runtime.source.ReadLimit;
import org.flinkss.runtime.source.SplitRecordReader;
import org.flinkss.runtime.table.delta.ChangeDataFeed;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A Delta table's change data feed as a micro-batch source ({@link ChangeFeedPlanner} plans, {@link
 * ChangeFeedFormat} reads), over a real local table with the feed that {@link MergeCommit} writes
 * as delta-spark does: inserts, updates (pre- and post-images) and deletes, version by version,
 * Spark's columns; a restart in the middle of a version reads no row twice and loses none; the
 * changelog form gives Flink's row kinds; the refusals name the table and what to do.
 */
class ChangeFeedSourceTest {

    private static final String QUERY = "0b7c0a2e-4f51-4c1e-9a49-3f1d2b3c4d5e";
    private static final RowType ROW_TYPE =
            RowType.of(
                    new LogicalType[] {new BigIntType(), VarCharType.STRING_TYPE, new DoubleType()},
                    new String[] {"event_id", "event_type", "amount"});
    private static final Map<String, String> WITH_FEED = Map.of(ChangeDataFeed.PROPERTY, "true");

    @TempDir Path dir;

    private String folder;
    private DeltaTable table;
    private final MergeCommit merge = new MergeCommit(ROW_TYPE, List.of("event_id"));

    /** Version 0 creates the table; 1 inserts 1, 2, 3; 2 updates 2 and inserts 4; 3 deletes 1. */
    @BeforeEach
    void tableWithInsertsUpdatesAndDeletes() throws IOException {
        folder = dir.resolve("events_latest").toUri().toString();
        table = DeltaTable.forPath(folder);
        table.create(ROW_TYPE, WITH_FEED);
        commit(merge, 0, row(1, "view", 1.0), row(2, "view", 2.0), row(3, "view", 3.0));
        commit(merge, 1, row(2, "buy", 20.0), row(4, "click", 4.0));
        commit(merge, 2, delete(row(1, "view", 1.0)));
        assertThat(table.version()).isEqualTo(3);
    }

    @Test
    void fromAStartingVersionEachVersionsChangesComeOnceAcrossARestartInTheMiddle()
            throws Exception {
        List<String> expected =
                List.of(
                        "insert 1 view 1.0 v1",
                        "insert 2 view 2.0 v1",
                        "insert 3 view 3.0 v1",
                        "update_preimage 2 view 2.0 v2",
                        "update_postimage 2 buy 20.0 v2",
                        "insert 4 click 4.0 v2",
                        "delete 1 view 1.0 v3",
                        "update_preimage 3 view 3.0 v4",
                        "update_postimage 3 buy 30.0 v4");
        ChangeFeedFormat format = format(false);
        List<String> emitted = new ArrayList<>();

        // Step 1: batch 0 reads versions 0 and 1 (two versions a batch) and commits.
        ChangeFeedPlanner planner = planner(0L, false);
        planner.restore(null);
        planner.refreshTarget();
        List<ChangeFeedSplit> first =
                planner.nextBatch(0, ReadLimit.none().withMaxFilesPerTrigger(2));
        assertThat(first).extracting(ChangeFeedSplit::version).containsExactly(0L, 1L);
        for (ChangeFeedSplit s : first) {
            emitted.addAll(readAll(format, s));
        }
        planner.commit(first);
        byte[] committed = planner.committed();

        // Step 2: batch 1 (versions 2 and 3) is cut off after the first row of version 2.
        List<ChangeFeedSplit> second =
                planner.nextBatch(1, ReadLimit.none().withMaxFilesPerTrigger(2));
        assertThat(second).extracting(ChangeFeedSplit::version).containsExactly(2L, 3L);
        long position;
        try (SplitRecordReader<RowData> reader = format.open(second.get(0))) {
            emitted.add(text(reader.next()));
            position = reader.position();
        }

        // Step 3: a new run restores the committed position; batch 1 is replayed as the offset
        // log recorded it, version 2 from the reader's position; version 4 is written meanwhile.
        commit(merge, 3, row(3, "buy", 30.0));
        ChangeFeedPlanner restored = planner(0L, false);
        restored.restore(committed);
        restored.refreshTarget();
        List<ChangeFeedSplit> replay = List.of(second.get(0).withPosition(position), second.get(1));
        for (ChangeFeedSplit s : replay) {
            emitted.addAll(readAll(format, s));
        }
        restored.commit(replay);

        // Step 4: the next batch is version 4 alone, then nothing.
        List<ChangeFeedSplit> third = restored.nextBatch(2, ReadLimit.none());
        assertThat(third).extracting(ChangeFeedSplit::version).containsExactly(4L);
        for (ChangeFeedSplit s : third) {
            emitted.addAll(readAll(format, s));
        }
        restored.commit(third);
        assertThat(restored.nextBatchIsEmpty()).isTrue();
        assertThat(restored.describeOffsets()).containsEntry("reservoirVersion", 5L);

        assertThat(emitted).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(format.producedType().toString())
                .contains("_change_type", "_commit_version", "_commit_timestamp");
    }

    @Test
    void withoutAStartingVersionTheSnapshotComesFirstAsInsertsOfItsVersion() throws Exception {
        ChangeFeedPlanner planner = planner(null, false);
        planner.restore(null);
        planner.refreshTarget();
        commit(merge, 3, row(4, "view", 5.0)); // version 4, after the run's target

        List<ChangeFeedSplit> batch = planner.nextBatch(0, ReadLimit.none());
        assertThat(batch).hasSize(1);
        assertThat(batch.get(0).snapshot()).isTrue();
        assertThat(readAll(format(false), batch.get(0)))
                .containsExactlyInAnyOrder(
                        "insert 2 buy 20.0 v3", "insert 3 view 3.0 v3", "insert 4 click 4.0 v3");
        planner.commit(batch);
        assertThat(planner.nextBatchIsEmpty()).as("version 4 is after the run's target").isTrue();

        planner.refreshTarget();
        List<ChangeFeedSplit> next = planner.nextBatch(1, ReadLimit.none());
        assertThat(next).extracting(ChangeFeedSplit::version).containsExactly(4L);
        assertThat(readAll(format(false), next.get(0)))
                .containsExactly(
                        "update_preimage 4 click 4.0 v4", "update_postimage 4 view 5.0 v4");
    }

    @Test
    void theChangelogFormGivesFlinksRowKindsOneVersionABatchRetractionsFirst() throws Exception {
        ChangeFeedPlanner planner = planner(2L, true);
        planner.restore(null);
        planner.refreshTarget();
        List<ChangeFeedSplit> batch = planner.nextBatch(0, ReadLimit.none());
        assertThat(batch).extracting(ChangeFeedSplit::version).containsExactly(2L);

        List<String> kinds = new ArrayList<>();
        try (SplitRecordReader<RowData> reader = format(true).open(batch.get(0))) {
            for (RowData r = reader.next(); r != null; r = reader.next()) {
                kinds.add(r.getRowKind().shortString() + " " + text(r));
            }
        }
        assertThat(kinds)
                .containsExactlyInAnyOrder(
                        "-U update_preimage 2 view 2.0 v2",
                        "+U update_postimage 2 buy 20.0 v2",
                        "+I insert 4 click 4.0 v2");
        assertThat(kinds.get(0)).startsWith("-U");

        // A complete-mode overwrite lists its adds before its removes; the changelog puts the
        // removes first, so a key that stays is deleted, then inserted anew.
        DeltaTable gold = DeltaTable.forPath(dir.resolve("events_by_type").toUri().toString());
        gold.create(ROW_TYPE, WITH_FEED);
        CompleteCommit complete = new CompleteCommit(ROW_TYPE, List.of("event_id"));
        complete.commit(
                gold, QUERY, 0, List.of(ChangeSetBytes.of(ROW_TYPE, List.of(row(1, "view", 1.0)))));
        complete.commit(
                gold, QUERY, 1, List.of(ChangeSetBytes.of(ROW_TYPE, List.of(row(1, "view", 2.0)))));
        ChangeFeedFormat goldFormat =
                new ChangeFeedFormat("events_by_type", gold.path(), ROW_TYPE, true, -1);
        List<RowKind> order = new ArrayList<>();
        try (SplitRecordReader<RowData> reader =
                goldFormat.open(new ChangeFeedSplit(gold.version(), false, 0, 0))) {
            for (RowData r = reader.next(); r != null; r = reader.next()) {
                order.add(r.getRowKind());
            }
        }
        assertThat(order).containsExactly(RowKind.DELETE, RowKind.INSERT);
    }

    @Test
    void aTableWithoutTheFeedIsRefusedNamingItThePropertyAndReset() {
        DeltaTable plain = DeltaTable.forPath(dir.resolve("events_5min").toUri().toString());
        plain.create(ROW_TYPE, Map.of());
        ChangeFeedPlanner planner = new ChangeFeedPlanner("events_5min", plain.path(), 0L, false);

        assertThatThrownBy(
                        () -> {
                            planner.restore(null);
                            planner.refreshTarget();
                        })
                .isInstanceOf(PermanentFailure.class)
                .hasMessageContaining("table 'events_5min' has no change data feed")
                .hasMessageContaining(ChangeDataFeed.PROPERTY)
                .hasMessageContaining("reset <query>");
    }

    @Test
    void aStartingVersionBeforeTheFeedWasOnOrAfterTheLastIsRefused() throws Exception {
        DeltaTable later = DeltaTable.forPath(dir.resolve("events_5min").toUri().toString());
        later.create(ROW_TYPE, Map.of()); // version 0, no feed
        later.replace(ROW_TYPE, WITH_FEED); // version 1 turns it on

        ChangeFeedPlanner before = new ChangeFeedPlanner("events_5min", later.path(), 0L, false);
        before.restore(null);
        assertThatThrownBy(before::refreshTarget)
                .isInstanceOf(PermanentFailure.class)
                .hasMessageContaining("change data was not recorded for version 0")
                .hasMessageContaining("table history events_5min");

        ChangeFeedPlanner after = planner(9L, false);
        after.restore(null);
        assertThatThrownBy(after::refreshTarget)
                .isInstanceOf(PermanentFailure.class)
                .hasMessageContaining("starting version 9 is after its last version, 3");

        ChangeFeedPlanner from1 = new ChangeFeedPlanner("events_5min", later.path(), 1L, false);
        from1.restore(null);
        from1.refreshTarget();
        assertThat(from1.nextBatch(0, ReadLimit.none())).hasSize(1);
    }

    @Test
    void aVersionWhoseChangeFilesAreGoneFailsTheRunNamingTheVersion() throws Exception {
        try (Stream<Path> files =
                Files.list(dir.resolve("events_latest").resolve("_change_data"))) {
            for (Path f : files.toList()) {
                Files.delete(f);
            }
        }
        assertThatThrownBy(() -> readAll(format(false), new ChangeFeedSplit(2, false, 0, 0)))
                .isInstanceOf(PermanentFailure.class)
                .hasMessageContaining("table 'events_latest'")
                .hasMessageContaining("a file of version 2 is gone")
                .hasMessageContaining("vacuum");
    }

    // ---------------------------------------------------------------- helpers

    private ChangeFeedPlanner planner(Long startingVersion, boolean changelog) {
        return new ChangeFeedPlanner("events_latest", folder, startingVersion, changelog);
    }

    private ChangeFeedFormat format(boolean changelog) {
        return new ChangeFeedFormat("events_latest", folder, ROW_TYPE, changelog, -1);
    }

    private static List<String> readAll(ChangeFeedFormat format, ChangeFeedSplit split)
            throws IOException {
        List<String> rows = new ArrayList<>();
        try (SplitRecordReader<RowData> reader = format.open(split)) {
            for (RowData r = reader.next(); r != null; r = reader.next()) {
                rows.add(text(r));
            }
        }
        return rows;
    }

    /** {@code <_change_type> <event_id> <event_type> <amount> v<_commit_version>}. */
    private static String text(RowData r) {
        assertThat(r.isNullAt(5)).as("_commit_timestamp").isFalse();
        return r.getString(3)
                + " "
                + r.getLong(0)
                + " "
                + r.getString(1)
                + " "
                + r.getDouble(2)
                + " v"
                + r.getLong(4);
    }

    private void commit(TableCommit commit, long batchId, RowData... rows) throws IOException {
        commit.commit(table, QUERY, batchId, List.of(ChangeSetBytes.of(ROW_TYPE, List.of(rows))));
    }

    private static RowData row(long id, String type, double amount) {
        return GenericRowData.of(id, StringData.fromString(type), amount);
    }

    private static RowData delete(RowData row) {
        row.setRowKind(RowKind.DELETE);
        return row;
    }
}
