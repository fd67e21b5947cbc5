package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.Path;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.flinkss.runtime.table.delta.TestRows.EVENTS;
import static org.flinkss.runtime.table.delta.TestRows.events;

/**
 * A batch's {@link Completeness} recorded in the commit info of a real local Delta table, through
 * each way a batch commits (Kernel's append, a MERGE, a table with the change data feed, whose log
 * entries the project writes itself), and read back by history and by the table's newest commit.
 */
class CompletenessTest {

    private static final String QUERY = "q-1";
    private static final long T1 = Instant.parse("2025-03-01T00:05:00Z").toEpochMilli();
    private static final long T2 = Instant.parse("2025-03-01T00:10:00Z").toEpochMilli();

    @TempDir java.nio.file.Path dir;

    @Test
    void anAppendRecordsTheWatermarkAndTheFinalBoundBesideDeltasOwnCommitInfo() throws Exception {
        DeltaTable table = table("t", Map.of());

        table.recordInCommits(Completeness.of(T1, Completeness.WINDOW_END));
        long version = table.append(QUERY, 0, List.of(write(table, 3))).version();

        JsonNode info = commitInfo("t", version);
        assertThat(info.path("operation").asText()).isEqualTo("STREAMING UPDATE");
        assertThat(info.path("engineInfo").asText()).endsWith(DeltaTable.ENGINE_INFO);
        assertThat(info.path("operationParameters").path("flinkss.watermark").asText())
                .isEqualTo("2025-03-01T00:05:00.000Z");
        assertThat(info.path("operationParameters").path("flinkss.finalBefore").asText())
                .isEqualTo("2025-03-01T00:05:00.000Z");
        assertThat(info.path("operationParameters").path("flinkss.finalColumn").asText())
                .isEqualTo("window_end");
        assertThat(table.completeness()).isEqualTo(new Completeness(T1, T1, "window_end"));
    }

    @Test
    void aTableThatIsNotWindowedRecordsOnlyTheWatermarkAndBronzeRecordsNothing() throws Exception {
        DeltaTable late = table("late", Map.of());
        late.recordInCommits(Completeness.of(T1, null));
        late.append(QUERY, 0, List.of(write(late, 1)));
        DeltaTable bronze = table("bronze", Map.of());
        bronze.recordInCommits(Completeness.of(null, null));
        long version = bronze.append(QUERY, 0, List.of(write(bronze, 1))).version();

        assertThat(late.completeness()).isEqualTo(new Completeness(T1, null, null));
        assertThat(late.completeness().finalBound()).isEmpty();
        assertThat(bronze.completeness()).isEqualTo(Completeness.NONE);
        assertThat(
                        commitInfo("bronze", version)
                                .path("operationParameters")
                                .has("flinkss.watermark"))
                .isFalse();
    }

    @Test
    void historyShowsEachCommitsCompletenessAndAnOlderCommitRecordsNone() throws Exception {
        DeltaTable table = table("t", Map.of());
        table.append(QUERY, 0, List.of(write(table, 1)));
        table.recordInCommits(Completeness.of(T1, Completeness.WINDOW_END));
        table.append(QUERY, 1, List.of(write(table, 1)));
        table.recordInCommits(Completeness.of(T2, Completeness.WINDOW_END));
        table.append(QUERY, 2, List.of(write(table, 1)));

        List<HistoryEntry> history = table.history(10);

        assertThat(history)
                .extracting(h -> h.completeness().finalBefore())
                .containsExactly(T2, T1, null, null);
        assertThat(history.get(0).completeness().watermarkInstant())
                .contains(Instant.ofEpochMilli(T2));
    }

    @Test
    void aMergeKeepsItsOperationParametersAndMetricsAndAddsTheCompleteness() throws Exception {
        DeltaTable table = table("t", Map.of());
        table.recordInCommits(Completeness.of(T1, Completeness.WINDOW_END));
        long version =
                table.merge(
                                QUERY,
                                0,
                                table.version(),
                                Set.of(),
                                List.of(write(table, 2)),
                                new OperationInfo(
                                        "MERGE",
                                        Map.of("predicate", "[\"k\"]"),
                                        Map.of("numSourceRows", "2")))
                        .version();

        JsonNode info = commitInfo("t", version);
        assertThat(info.path("operation").asText()).isEqualTo("MERGE");
        assertThat(info.path("operationParameters").path("predicate").asText())
                .isEqualTo("[\"k\"]");
        assertThat(info.path("operationMetrics").path("numSourceRows").asText()).isEqualTo("2");
        assertThat(info.path("operationParameters").path("flinkss.finalBefore").asText())
                .isEqualTo("2025-03-01T00:05:00.000Z");
        assertThat(table.completeness().finalBefore()).isEqualTo(T1);
    }

    @Test
    void aTableWithTheChangeFeedRecordsItInTheEntriesTheProjectWritesItself() throws Exception {
        DeltaTable table = table("feed", Map.of(ChangeDataFeed.PROPERTY, "true"));
        table.recordInCommits(Completeness.of(T2, Completeness.WINDOW_END));
        long version = table.append(QUERY, 0, List.of(write(table, 2))).version();

        assertThat(
                        commitInfo("feed", version)
                                .path("operationParameters")
                                .path("flinkss.watermark")
                                .asText())
                .isEqualTo("2025-03-01T00:10:00.000Z");
        assertThat(table.completeness()).isEqualTo(new Completeness(T2, T2, "window_end"));
    }

    @Test
    void parametersOfAnotherWriterOrNoneAreNoCompleteness() {
        assertThat(Completeness.fromParameters(Map.of("mode", "Append")))
                .isEqualTo(Completeness.NONE);
        assertThat(
                        Completeness.fromParameters(
                                Map.of(Completeness.WATERMARK, "not a time", "x", "y")))
                .isEqualTo(Completeness.NONE);
        // Before the epoch Spark's watermark is the epoch: the bound is never earlier.
        assertThat(Completeness.of(-5L, "window_end").finalBefore()).isZero();
        assertThat(Completeness.of(null, "window_end")).isEqualTo(Completeness.NONE);
    }

    private DeltaTable table(String name, Map<String, String> properties) {
        DeltaTable table = DeltaTable.forPath(dir.resolve(name).toString());
        table.create(EVENTS, properties);
        return table;
    }

    private DataFile write(DeltaTable table, int rows) throws Exception {
        return DataFiles.write(new Path(table.path()), EVENTS, events(0, rows));
    }

    private JsonNode commitInfo(String table, long version) throws Exception {
        return DeltaTableTest.logEntry(dir.resolve(table), version).stream()
                .filter(a -> a.has("commitInfo"))
                .findFirst()
                .orElseThrow()
                .get("commitInfo");
    }
}
