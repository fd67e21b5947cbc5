package org.flinkss.runtime.checkpoint;

import org.apache.flink.core.fs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.storage.Storage;

import java.io.File;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The warehouse a checkpoint is bound to: recorded once, kept when the identity is rewritten,
 * relative to a base it is under, and any other refused in one line.
 */
class WarehouseBindingTest {

    private static final QueryIdentity BRONZE = IdentityStoreTest.BRONZE;

    @TempDir java.nio.file.Path dir;

    private static Path at(java.nio.file.Path folder) {
        return Storage.location(folder.toFile());
    }

    private CheckpointLayout claimed(java.nio.file.Path base) {
        CheckpointLayout layout = CheckpointLayout.of(at(base), "bronze");
        new IdentityStore(layout).claim(BRONZE);
        return layout;
    }

    @Test
    void aWarehouseOutsideTheBaseIsRecordedAsItIsAndAnyOtherIsRefusedNamingBoth() {
        java.nio.file.Path base = dir.resolve("fw");
        String warehouse = dir.resolve("fw_wh").toString();
        CheckpointLayout layout = claimed(base);
        WarehouseBinding binding = new WarehouseBinding(layout);
        binding.check("bronze", at(dir.resolve("fw_wh"))); // no record yet: a first run passes

        binding.record(at(dir.resolve("fw_wh")));

        assertThat(binding.warehouse()).contains(warehouse);
        binding.check("bronze", at(dir.resolve("fw_wh")));
        binding.check("bronze", new Path("file:" + warehouse + "/")); // the same, spelled so
        String forgotten = base.resolve("warehouse").toString();
        assertThatThrownBy(() -> binding.check("bronze", at(base.resolve("warehouse"))))
                .isInstanceOf(QueryException.class)
                .hasMessageContaining("query 'bronze' refused")
                .hasMessageContaining("writes to the warehouse " + warehouse + ",")
                .hasMessageContaining("this run's warehouse is " + forgotten + " ")
                .hasMessageContaining("run it again with --warehouse " + warehouse + ",")
                .hasMessageNotContaining("\n");
        assertThatThrownBy(() -> binding.check("bronze", new Path("s3://flinkss/fw_wh")))
                .isInstanceOf(QueryException.class)
                .hasMessageContaining("this run's warehouse is s3://flinkss/fw_wh ");
    }

    @Test
    void aRecordIsWrittenOnceAndKeptWhenTheIdentityIsRewritten() {
        java.nio.file.Path base = dir.resolve("base");
        CheckpointLayout layout = claimed(base);
        WarehouseBinding binding = new WarehouseBinding(layout);
        binding.record(at(dir.resolve("first")));
        binding.record(at(dir.resolve("second"))); // recorded already: unchanged

        // A later version adds record tables: the identity is written again, the record stays.
        new IdentityStore(layout)
                .claim(
                        new QueryIdentity(
                                "bronze",
                                BRONZE.sources(),
                                BRONZE.sinks(),
                                List.of(),
                                List.of("events_bronze_skipped_files"),
                                null));

        assertThat(binding.warehouse()).contains(dir.resolve("first").toString());
    }

    @Test
    void aWarehouseUnderTheBaseMovesWithIt() throws Exception {
        java.nio.file.Path base = dir.resolve("base");
        CheckpointLayout layout = claimed(base);
        new WarehouseBinding(layout).record(at(base.resolve("warehouse")));
        assertThat(
                        JsonFiles.JSON
                                .readTree(Storage.localFile(layout.metadata(), "a test file"))
                                .path("warehouse")
                                .asText())
                .isEqualTo("${base}/warehouse");

        // The base copied elsewhere, its warehouse inside it: the copy runs with its own.
        java.nio.file.Path copy = dir.resolve("copy");
        File metadata = copy.resolve("_cp/bronze/metadata.json").toFile();
        metadata.getParentFile().mkdirs();
        java.nio.file.Files.copy(
                Storage.localFile(layout.metadata(), "a test file").toPath(), metadata.toPath());
        WarehouseBinding moved = new WarehouseBinding(CheckpointLayout.of(at(copy), "bronze"));
        moved.check("bronze", at(copy.resolve("warehouse")));
        assertThat(moved.warehouse()).contains(copy.resolve("warehouse").toString());
        assertThatThrownBy(() -> moved.check("bronze", at(base.resolve("warehouse"))))
                .hasMessageContaining("--warehouse " + copy.resolve("warehouse"));
    }

    @Test
    void onAnObjectStoreTheRecordIsTheWarehousesUriRelativeToAnS3BaseItIsUnder() {
        String base = "s3://flinkss/run1";
        assertThat(WarehouseBinding.portable("s3://flinkss/run1/warehouse", base))
                .isEqualTo("${base}/warehouse");
        assertThat(WarehouseBinding.portable("s3://flinkss/run10/warehouse", base))
                .isEqualTo("s3://flinkss/run10/warehouse");
        assertThat(WarehouseBinding.portable("s3://flinkss/wh", base)).isEqualTo("s3://flinkss/wh");
        assertThat(WarehouseBinding.resolved("${base}/warehouse", "s3://flinkss/copy"))
                .isEqualTo("s3://flinkss/copy/warehouse");
        assertThat(WarehouseBinding.resolved("s3://flinkss/wh", base)).isEqualTo("s3://flinkss/wh");
    }
}
