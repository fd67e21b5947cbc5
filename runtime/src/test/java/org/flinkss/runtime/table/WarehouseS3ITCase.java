package org.flinkss.runtime.table;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DataFiles;
import org.flinkss.runtime.testing.S3TestServer;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A {@link Warehouse} on S3 (S3Proxy through {@code scripts/s3}): its tables are Delta tables under
 * {@code s3://flinkss/<prefix>/<name>}, found, owned, read, cleaned and emptied as in a local
 * folder, and the same table written to a local warehouse and to S3 reads the same.
 */
@Tag("ports")
class WarehouseS3ITCase {

    private static final RowType ROWS =
            RowType.of(
                    new LogicalType[] {new BigIntType(), VarCharType.STRING_TYPE},
                    new String[] {"id", "name"});

    @RegisterExtension
    static final S3TestServer.PerClass S3 = new S3TestServer.PerClass("warehouse-s3-it");

    @TempDir java.nio.file.Path tmp;

    @Test
    void tablesOnS3AreOwnedReadCleanedAndEmptiedAsInALocalFolder() throws Exception {
        Warehouse remote = new Warehouse(S3.server().freshPrefix("wh"));
        Warehouse local = new Warehouse(Storage.location(tmp.resolve("warehouse").toFile()));
        java.nio.file.Path checkpoint = tmp.resolve("_cp/bronze");

        // Step 1: the same batch committed to a table of each warehouse.
        for (Warehouse w : List.of(remote, local)) {
            TableOwner owner = TableOwner.query("bronze", "q1", checkpoint.toFile(), w);
            w.own("bronze", ROWS, owner, TableMode.APPENDED);
            DataFile file =
                    DataFiles.writeFile(
                            new Path(w.folder("bronze"), "q1-0.parquet"), ROWS, rows(0, 50));
            assertThat(w.delta("bronze").append("bronze", 0, List.of(file)).committed()).isTrue();
        }
        assertThat(remote.folder("bronze")).startsWith("s3://flinkss/wh-").endsWith("/bronze");
        assertThat(remote.tables()).containsExactly("bronze");
        assertThat(remote.exists("bronze")).isTrue();
        assertThat(remote.exists("silver")).isFalse();
        assertThat(remote.isLegacy("bronze")).isFalse();
        assertThat(remote.count("bronze")).isEqualTo(50);
        assertThat(remote.sortedValues("bronze")).isEqualTo(local.sortedValues("bronze"));
        assertThat(remote.owner("bronze").checkpoint())
                .isEqualTo(checkpoint.toAbsolutePath().toUri().toString());
        assertThat(local.owner("bronze").checkpoint()).isEqualTo("../_cp/bronze");

        // Step 2: a data file of a failed attempt is deleted, the committed one stays.
        Path stray = new Path(remote.folder("bronze"), "q1-1.parquet");
        DataFiles.writeFile(stray, ROWS, rows(50, 10));
        assertThat(Storage.exists(stray)).isTrue();
        assertThat(remote.deleteUncommitted("bronze", "q1")).isEqualTo(1);
        assertThat(Storage.exists(stray)).isFalse();
        assertThat(Storage.exists(new Path(remote.folder("bronze"), "q1-0.parquet"))).isTrue();
        assertThat(remote.count("bronze")).isEqualTo(50);

        // Step 3: another checkpoint is refused, naming the table's S3 folder.
        TableOwner other =
                TableOwner.query("bronze", "q2", tmp.resolve("_cp2/bronze").toFile(), remote);
        assertThatThrownBy(() -> remote.own("bronze", ROWS, other, TableMode.APPENDED))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(remote.folder("bronze"))
                .hasMessageContaining("query id q1");

        // Step 4: reset's empty commit hands the table over; old files stay for time travel.
        remote.empty("bronze", other);
        assertThat(remote.count("bronze")).isZero();
        assertThat(remote.owner("bronze").queryId()).isEqualTo("q2");
        assertThat(remote.snapshot("bronze", 1L, null).count()).isEqualTo(50);

        // Step 5: a missing table names the warehouse and its tables; local-only calls refuse.
        assertThatThrownBy(() -> remote.existing("gold"))
                .hasMessageContaining(remote.location().toString())
                .hasMessageContaining("(tables: bronze)");
        assertThat(remote.isLocal()).isFalse();
    }

    @Test
    void aFileUriWarehouseIsTheLocalFolder() {
        java.nio.file.Path folder = tmp.resolve("w");
        Warehouse byUri = new Warehouse(Storage.location(folder.toUri().toString()));
        Warehouse byPath = new Warehouse(Storage.location(folder.toFile()));
        assertThat(byUri.isLocal()).isTrue();
        assertThat(Storage.localFile(byUri.location(), "a test file").toPath())
                .isEqualTo(Storage.localFile(byPath.location(), "a test file").toPath());
        assertThat(byUri.folder("t")).isEqualTo(byPath.folder("t"));
        assertThat(byUri.uri("t")).isEqualTo(byPath.uri("t"));
    }

    private static List<RowData> rows(int from, int n) {
        List<RowData> rows = new ArrayList<>();
        for (int i = from; i < from + n; i++) {
            rows.add(GenericRowData.of((long) i, StringData.fromString("n" + i)));
        }
        return rows;
    }
}
