package org.flinkss.jobs.cli;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.jobs.CliOutput;
import org.flinkss.runtime.sink.delta.MergeCommit;
import org.flinkss.runtime.table.delta.ChangeDataFeed;
import org.flinkss.runtime.table.delta.DeltaTable;
import org.flinkss.runtime.testing.ChangeSetRows;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code table changes}: the feed of a MERGEd table as Spark's {@code table_changes} shows it, a
 * version range, {@code --csv}, and the refusal of a table without the feed.
 */
class TableChangesCommandTest {

    private static final String QUERY = "9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d";
    private static final RowType ROW_TYPE =
            RowType.of(
                    new LogicalType[] {new BigIntType(), VarCharType.STRING_TYPE, new DoubleType()},
                    new String[] {"event_id", "event_type", "amount"});

    @TempDir Path dir;

    private DeltaTable latest;

    @BeforeEach
    void mergeThreeBatches() throws Exception {
        latest = DeltaTable.forPath(warehouse().resolve("events_latest").toUri().toString());
        latest.create(ROW_TYPE, Map.of(ChangeDataFeed.PROPERTY, "true"));
        MergeCommit merge = new MergeCommit(ROW_TYPE, List.of("event_id"));
        merge.commit(latest, QUERY, 0, batch(row(1, "view", 1.0), row(2, "view", 2.0)));
        merge.commit(latest, QUERY, 1, batch(row(2, "buy", 20.0), row(3, "click", 3.0)));
        merge.commit(latest, QUERY, 1, batch(row(2, "buy", 20.0), row(3, "click", 3.0)));
        merge.commit(latest, QUERY, 2, batch(row(1, "buy", 10.0)));
    }

    @Test
    void csvListsEveryChangeByVersionWithItsTypeVersionAndTime() {
        List<String> lines =
                ok("table", "changes", "events_latest", "--csv").out().lines().toList();

        assertThat(lines.get(0))
                .isEqualTo(
                        "event_id,event_type,amount,_change_type,_commit_version,"
                                + "_commit_timestamp");
        assertThat(lines.subList(1, lines.size()).stream().map(l -> l.replaceAll(",[^,]*$", "")))
                .containsExactly(
                        "1,view,1.0,insert,1",
                        "2,view,2.0,insert,1",
                        "2,buy,20.0,update_postimage,2",
                        "2,view,2.0,update_preimage,2",
                        "3,click,3.0,insert,2",
                        "1,buy,10.0,update_postimage,3",
                        "1,view,1.0,update_preimage,3");
        assertThat(lines.get(1)).matches(".*,\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z$");
    }

    @Test
    void aVersionRangeReadsOnlyThoseVersions() {
        String out =
                ok("table", "changes", "events_latest", "--from-version", "3", "--to-version", "3")
                        .out();

        assertThat(out).contains("_change_type", "_commit_version", "_commit_timestamp");
        assertThat(out).contains("update_preimage", "update_postimage").doesNotContain("insert");
        assertThat(refused("table", "changes", "events_latest", "--from-version", "9").err())
                .contains("events_latest", "versions 9 to 3");
    }

    @Test
    void aTableWithoutTheFeedIsRefusedNamingItAndWhatToDo() {
        DeltaTable.forPath(warehouse().resolve("events_5min").toUri().toString())
                .create(ROW_TYPE, Map.of());

        String err = refused("table", "changes", "events_5min").err();

        assertThat(err).contains("table events_5min", "has no change data feed", "reset");
    }

    private Path warehouse() {
        return dir.resolve("base").resolve("warehouse");
    }

    private CliOutput ok(String... args) {
        CliOutput o = CliOutput.of(withBase(args));
        assertThat(o.code()).as("%s%s", o.out(), o.err()).isZero();
        return o;
    }

    private CliOutput refused(String... args) {
        CliOutput o = CliOutput.of(withBase(args));
        assertThat(o.code()).as("%s%s", o.out(), o.err()).isNotZero();
        return o;
    }

    private String[] withBase(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--base", dir.resolve("base").toString()));
        return all.toArray(String[]::new);
    }

    private static List<byte[]> batch(RowData... rows) throws Exception {
        return List.of(ChangeSetRows.bytes(ROW_TYPE, List.of(rows)));
    }

    private static RowData row(long id, String type, double amount) {
        return GenericRowData.of(id, StringData.fromString(type), amount);
    }
}
