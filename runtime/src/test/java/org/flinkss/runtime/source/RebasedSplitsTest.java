package org.flinkss.runtime.source;

import org.junit.jupiter.api.Test;

import org.flinkss.runtime.sink.delta.AppendCommit;
import org.flinkss.runtime.source.delta.DeltaSplit;
import org.flinkss.runtime.source.files.FileSplit;
import org.flinkss.runtime.table.delta.DataFile;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A base folder moved or copied: the landed files, table files and staged data files that its
 * checkpoints and offset log name at the old place are read as the files of the new place.
 */
class RebasedSplitsTest {

    @Test
    void aFileSplitPlannedInAnotherPlaceIsReadAsTheSameKeyOfThisRunsFolder() throws Exception {
        FileSplit planned =
                new FileSplit("/old/base/events/batch_1/part-0.json", "batch_1/part-0.json", 3, 7);
        byte[] bytes = new FileSplit.Serializer("/old/base/events").serialize(planned);

        FileSplit here = new FileSplit.Serializer("/new/place/events").deserialize(1, bytes);

        assertThat(here.location()).isEqualTo("/new/place/events/batch_1/part-0.json");
        assertThat(here.key()).isEqualTo("batch_1/part-0.json");
        assertThat(here.batchId()).isEqualTo(3);
        assertThat(here.position()).isEqualTo(7);
        assertThat(new FileSplit.Serializer().deserialize(1, bytes).location())
                .as("without a folder: as written")
                .isEqualTo("/old/base/events/batch_1/part-0.json");
    }

    @Test
    void aFileSplitOnAnObjectStoreIsRebasedTheSameWay() throws Exception {
        FileSplit planned =
                new FileSplit("s3://b/old/events/batch_1/a.json", "batch_1/a.json", 0, 0);
        byte[] bytes = new FileSplit.Serializer().serialize(planned);

        assertThat(new FileSplit.Serializer("s3://b/new/events").deserialize(1, bytes).location())
                .isEqualTo("s3://b/new/events/batch_1/a.json");
    }

    @Test
    void aDeltaSplitOfTheTablesFolderIsReadInThisRunsFolderOfTheTable() throws Exception {
        DeltaSplit planned =
                new DeltaSplit(
                        "file:/old/base/warehouse/events_bronze/x.parquet", 10, 4, 1, false, 2, 5);
        byte[] bytes = new DeltaSplit.Serializer().serialize(planned);

        DeltaSplit here =
                new DeltaSplit.Serializer("file:///new/place/warehouse/events_bronze")
                        .deserialize(1, bytes);

        assertThat(here.path()).isEqualTo("file:/new/place/warehouse/events_bronze/x.parquet");
        assertThat(here.splitId()).isEqualTo("v4-1");
        assertThat(here.position()).isEqualTo(5);
        DeltaSplit elsewhere = new DeltaSplit("file:/data/other/x.parquet", 10, 4, 1, false, 2, 5);
        assertThat(
                        new DeltaSplit.Serializer("file:///new/place/warehouse/events_bronze")
                                .deserialize(1, new DeltaSplit.Serializer().serialize(elsewhere))
                                .path())
                .as("a file outside any folder of the table's name: as it is")
                .isEqualTo("file:/data/other/x.parquet");
    }

    @Test
    void aStagedDataFileRestoredByTheCommitterIsTheFileOfThisRunsTableFolder() {
        DataFile staged =
                new DataFile(
                        "file:/old/base/warehouse/events_bronze/q-00000-u.parquet",
                        100,
                        5,
                        42,
                        Map.of("event_id", 1L),
                        Map.of("event_id", 9L),
                        Map.of());

        DataFile here =
                DataFile.fromBytes(
                        new AppendCommit()
                                .restored(
                                        staged.toBytes(),
                                        "file:///new/place/warehouse/events_bronze"));

        assertThat(here.path())
                .isEqualTo("file:/new/place/warehouse/events_bronze/q-00000-u.parquet");
        assertThat(here.withPath(staged.path())).isEqualTo(staged);
    }
}
