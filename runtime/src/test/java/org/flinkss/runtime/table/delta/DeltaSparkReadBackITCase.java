package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.sink.delta.ChangeSetBytes;
import org.flinkss.runtime.sink.delta.MergeCommit;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.flinkss.runtime.table.delta.TestRows.EVENTS;
import static org.flinkss.runtime.table.delta.TestRows.events;
import static org.flinkss.runtime.table.delta.TestRows.values;

/**
 * Every kind of table this package writes, read back by a second, independent Delta reader: Spark
 * 4.0 with delta-spark 4.0, in its own JVM ({@link SparkDeltaReader}). An ITCase because it starts
 * Spark (a minute or more on a loaded machine), though it runs no Flink job.
 */
@Tag("spark")
class DeltaSparkReadBackITCase {

    @TempDir java.nio.file.Path dir;

    private static DataFile write(DeltaTable table, List<RowData> rows) throws Exception {
        return DataFiles.write(new Path(table.path()), EVENTS, rows);
    }

    @Test
    void sparkReadsEveryTableAsKernelWroteIt() throws Exception {
        // Step 1: an append table with every column type, nulls, a replayed (skipped) batch.
        DeltaTable appended = DeltaTable.forPath(dir.resolve("appended").toString());
        appended.create(EVENTS, Map.of());
        appended.append(
                "q", 0, List.of(write(appended, events(0, 50)), write(appended, events(50, 20))));
        appended.append("q", 1, List.of(write(appended, events(70, 30))));
        appended.append("q", 1, List.of(write(appended, events(70, 30)))); // replay: skipped

        // Step 2: a complete-mode table overwritten three times.
        DeltaTable complete = DeltaTable.forPath(dir.resolve("complete").toString());
        complete.create(EVENTS, Map.of());
        for (int b = 0; b < 3; b++) {
            complete.overwrite("w", b, List.of(write(complete, events(b * 100, 5 + b))));
        }

        // Step 3: a long table, checkpointed by Kernel at version 10 (Spark reads the checkpoint).
        DeltaTable longer = DeltaTable.forPath(dir.resolve("longer").toString());
        longer.create(EVENTS, Map.of());
        for (int b = 0; b < 12; b++) {
            longer.append("q", b, List.of(write(longer, events(b * 10, 10))));
        }

        // Step 4: a table of the earlier format, converted in place.
        java.nio.file.Path legacy = dir.resolve("warehouse").resolve("legacy");
        LegacyFolder.declare(legacy, EVENTS, "bronze", "append");
        LegacyFolder.part(legacy, "part-0-0.parquet", EVENTS, events(0, 25));
        DeltaTable converted =
                LegacyTables.convert(legacy.toFile(), DeltaStorage.flink(), Map.of());

        // Step 5: a table merged into (events_latest's MERGE): inserts, then updates of keys in
        // the first file with new ones, then that batch replayed (skipped).
        DeltaTable merged = DeltaTable.forPath(dir.resolve("merged").toString());
        merged.create(EVENTS, Map.of());
        MergeCommit merge = new MergeCommit(EVENTS, List.of("event_id"));
        merge.commit(merged, "m", 0, List.of(ChangeSetBytes.of(EVENTS, events(0, 10))));
        merge.commit(merged, "m", 1, List.of(ChangeSetBytes.of(EVENTS, events(5, 10))));
        merge.commit(
                merged,
                "m",
                1,
                List.of(ChangeSetBytes.of(EVENTS, events(20, 10)))); // replay: skipped

        // Step 6: a table whose columns grew (bronze's --schema-evolution add-new-columns): a
        // batch that adds 'channel' in its own commit, then 'score' added alone.
        DeltaTable evolved = DeltaTable.forPath(dir.resolve("evolved").toString());
        evolved.create(EVENTS, Map.of());
        evolved.append("q", 0, List.of(write(evolved, events(0, 10))));
        RowType withChannel =
                SchemaGrowth.union(
                        EVENTS,
                        List.of(new RowType.RowField("channel", VarCharType.STRING_TYPE)),
                        "evolved",
                        "a test");
        List<RowData> channelRows = new ArrayList<>();
        for (RowData row : events(10, 5)) {
            GenericRowData grown = new GenericRowData(EVENTS.getFieldCount() + 1);
            for (int i = 0; i < EVENTS.getFieldCount(); i++) {
                grown.setField(
                        i, RowData.createFieldGetter(EVENTS.getTypeAt(i), i).getFieldOrNull(row));
            }
            grown.setField(EVENTS.getFieldCount(), StringData.fromString("web"));
            channelRows.add(grown);
        }
        evolved.appendWithSchema(
                "q",
                1,
                List.of(DataFiles.write(new Path(evolved.path()), withChannel, channelRows)),
                withChannel);
        evolved.addColumns(
                SchemaGrowth.union(
                        withChannel,
                        List.of(new RowType.RowField("score", new BigIntType())),
                        "evolved",
                        "a test"));

        // Step 7: a table with a CHECK constraint and a NOT NULL column, as Delta writes them:
        // Spark refuses an INSERT that breaks either, with Delta's errors, and takes a valid one.
        DeltaTable constrained = DeltaTable.forPath(dir.resolve("constrained").toString());
        constrained.create(EVENTS, Map.of());
        constrained.append("q", 0, List.of(write(constrained, events(0, 10))));
        constrained.constraints().add("small_id", "event_id < 1000", 1);
        constrained.constraints().setNotNull("user_id", 2);
        String into = "sql:INSERT INTO delta.`" + constrained.path() + "` VALUES (";
        String others =
                ", 1, 'view', TIMESTAMP '2025-03-01 00:00:00', 1.5, false, DATE '2025-03-01')";

        // Step 8: a table Spark writes with deletion vectors: 100 rows in one file, then a DELETE
        // of every third, which Spark records as a deletion vector on that file.
        String hidden = dir.resolve("deletion-vectors").toUri().toString();
        String dv = "sql:" + "%s delta.`" + hidden + "` %s";
        List<String> deletionVectors =
                List.of(
                        dv.formatted(
                                "CREATE TABLE",
                                "(id BIGINT, name STRING) USING delta TBLPROPERTIES"
                                        + " ('delta.enableDeletionVectors' = 'true')"),
                        dv.formatted(
                                "INSERT INTO",
                                "SELECT id, concat('n', CAST(id AS STRING)) FROM range(0, 100, 1,"
                                        + " 1)"),
                        dv.formatted("DELETE FROM", "WHERE id % 3 = 0"));

        List<String> reads = new ArrayList<>(deletionVectors);
        reads.add(hidden);
        reads.addAll(
                List.of(
                        into + "5000" + others,
                        into + "600, NULL" + others.substring(3),
                        into + "500" + others,
                        constrained.path(),
                        evolved.path(),
                        merged.path(),
                        appended.path(),
                        appended.path() + "@1",
                        complete.path(),
                        complete.path() + "@2",
                        longer.path(),
                        converted.path()));
        Map<String, SparkDeltaReader.Table> spark = SparkDeltaReader.read(reads);

        assertThat(spark.get(appended.path()).schema())
                .isEqualTo(
                        "struct<event_id:bigint,user_id:int,event_type:string,event_ts:timestamp,amount:double,flagged:boolean,day:date>");
        assertThat(spark.get(appended.path()).rows())
                .isEqualTo(SparkDeltaReader.lines(values(events(0, 100), EVENTS)));
        assertThat(spark.get(appended.path() + "@1").rows())
                .isEqualTo(SparkDeltaReader.lines(values(events(0, 70), EVENTS)));
        assertThat(spark.get(appended.path()).history())
                .containsExactly("2 STREAMING UPDATE", "1 STREAMING UPDATE", "0 CREATE TABLE");
        assertThat(spark.get(complete.path()).rows())
                .isEqualTo(SparkDeltaReader.lines(values(events(200, 7), EVENTS)));
        assertThat(spark.get(complete.path() + "@2").rows())
                .isEqualTo(SparkDeltaReader.lines(values(events(100, 6), EVENTS)));
        assertThat(spark.get(longer.path()).rows())
                .isEqualTo(SparkDeltaReader.lines(values(events(0, 120), EVENTS)));
        assertThat(spark.get(converted.path()).rows())
                .isEqualTo(SparkDeltaReader.lines(values(events(0, 25), EVENTS)));
        assertThat(spark.get(merged.path()).rows())
                .isEqualTo(SparkDeltaReader.lines(values(events(0, 15), EVENTS)));
        assertThat(spark.get(merged.path()).history())
                .containsExactly("2 MERGE", "1 MERGE", "0 CREATE TABLE");
        assertThat(spark.get(evolved.path()).schema())
                .isEqualTo(
                        "struct<event_id:bigint,user_id:int,event_type:string,event_ts:timestamp,amount:double,flagged:boolean,day:date,channel:string,score:bigint>");
        List<String> evolvedRows = new ArrayList<>();
        for (List<Object> row : values(events(0, 15), EVENTS)) {
            List<Object> grown = new ArrayList<>(row);
            grown.add((Long) row.get(0) >= 10 ? "web" : null);
            grown.add(null);
            evolvedRows.add(SparkDeltaReader.line(grown));
        }
        evolvedRows.sort(null);
        assertThat(spark.get(evolved.path()).rows()).isEqualTo(evolvedRows);
        assertThat(spark.get(into + "5000" + others).rows())
                .singleElement()
                .asString()
                .startsWith("ERROR [DELTA_VIOLATE_CONSTRAINT_WITH_VALUES]")
                .contains("DELTA_VIOLATE_CONSTRAINT_WITH_VALUES")
                .contains("small_id");
        assertThat(spark.get(into + "600, NULL" + others.substring(3)).rows())
                .singleElement()
                .asString()
                .contains("DELTA_NOT_NULL_CONSTRAINT_VIOLATED")
                .contains("user_id");
        assertThat(spark.get(into + "500" + others).rows()).containsExactly("OK");
        assertThat(spark.get(constrained.path()).rows())
                .hasSize(11)
                .contains("500|1|view|1740787200000000|1.5|false|2025-03-01");
        assertThat(spark.get(constrained.path()).history())
                .containsExactly(
                        "4 WRITE",
                        "3 CHANGE COLUMN",
                        "2 ADD CONSTRAINT",
                        "1 STREAMING UPDATE",
                        "0 CREATE TABLE");
        // Our next batch goes on from Spark's version, which it reads, not overwrites.
        assertThat(constrained.append("q", 1, List.of(write(constrained, events(10, 5)))).version())
                .isEqualTo(5);
        assertThat(constrained.snapshot().count()).isEqualTo(16);
        assertThat(constrained.constraints().checks()).containsKey("small_id");
        assertThat(DeltaConstraints.notNullColumns(constrained.rowType()))
                .containsExactly("user_id");

        // The deletion vectors: Spark wrote them (its DELETE went through, and the one file is
        // still listed whole) and kept 66 rows; the project counts and shows the same 66, and
        // refuses, naming the table and what to do, what would read or rewrite files whole.
        deletionVectors.forEach(
                statement -> assertThat(spark.get(statement).rows()).containsExactly("OK"));
        assertThat(spark.get(hidden).rows()).hasSize(66).doesNotContain("3|n3").contains("4|n4");
        DeltaSnapshot withVectors = DeltaTable.forPath(hidden).snapshot();
        assertThat(withVectors.count()).isEqualTo(66);
        assertThat(SparkDeltaReader.lines(values(withVectors.rows(), withVectors.rowType())))
                .isEqualTo(spark.get(hidden).rows());
        assertThatThrownBy(withVectors::files)
                .hasMessageContaining("hides rows of 1 data file(s) with deletion vectors")
                .hasMessageContaining("REORG TABLE");

        // The same rows as the project's reader and Kernel's give.
        List<List<Object>> ours = new ArrayList<>(values(appended.snapshot().rows(), EVENTS));
        assertThat(SparkDeltaReader.lines(ours)).isEqualTo(spark.get(appended.path()).rows());
        assertThat(SparkDeltaReader.lines(TestRows.readWithKernel(longer.path())))
                .isEqualTo(spark.get(longer.path()).rows());
    }
}
