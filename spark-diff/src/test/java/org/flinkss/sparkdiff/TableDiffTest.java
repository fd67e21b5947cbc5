package org.flinkss.sparkdiff;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** How two exports are compared and judged against the list of expected differences. */
class TableDiffTest {

    static final String HEADER = "event_id,user_id,event_type,event_ts,amount";

    @TempDir Path dir;

    private static TableDiff diff(DiffQuery query, List<String> spark, List<String> flink) {
        return TableDiff.of(7, 2, query, "table", 4, spark, flink);
    }

    @Test
    void theSameRowsInAnotherOrderDoNotDiffer() {
        TableDiff d =
                diff(
                        DiffQuery.DEDUP,
                        List.of(
                                HEADER,
                                "1,1,view,2025-03-01T00:00:00.000Z,1.0",
                                "2,1,buy,2025-03-01T00:00:01.000Z,"),
                        List.of(
                                HEADER,
                                "2,1,buy,2025-03-01T00:00:01.000Z,",
                                "1,1,view,2025-03-01T00:00:00.000Z,1.0"));
        assertThat(d.differs()).isFalse();
    }

    @Test
    void microsecondsThatTheProjectCutsAreAPrecisionDifferenceNotARowDifference() {
        TableDiff d =
                diff(
                        DiffQuery.BRONZE,
                        List.of(HEADER, "1,1,view,2025-03-01T00:00:00.250123Z,1.0"),
                        List.of(HEADER, "1,1,view,2025-03-01T00:00:00.250Z,1.0"));
        assertThat(d.precisionDiffers()).isTrue();
        assertThat(d.rowsDiffer()).isFalse();
    }

    @Test
    void aRepeatedRowCountsEveryTime() {
        TableDiff d =
                diff(
                        DiffQuery.VIEW_THEN_BUY_OUTER,
                        List.of("user_id,view_id,buy_id", "3,145,138", "3,145,138"),
                        List.of("user_id,view_id,buy_id", "3,145,138"));
        assertThat(d.rowsDiffer()).isTrue();
        assertThat(d.onlySparkMs()).containsExactly("3,145,138");
        assertThat(d.onlyFlinkMs()).isEmpty();
        assertThat(d.describe())
                .contains(
                        "seed 7, round 2, query view-then-buy-outer (view_then_buy_left), api"
                                + " table, parallelism 4",
                        "1 only in Spark, 0 only in the project",
                        "only in Spark:   3,145,138");
    }

    @Test
    void aDifferenceThatNoEntryListsFailsWithWhereAndWhichRows() {
        TableDiff d =
                diff(
                        DiffQuery.WIN5,
                        List.of(
                                "window_start,window_end,event_type,events,amount",
                                "2025-03-01T00:00:00.000Z,2025-03-01T00:05:00.000Z,view,2,3.5"),
                        List.of("window_start,window_end,event_type,events,amount"));
        assertThatThrownBy(
                        () ->
                                SparkDiffITCase.judge(
                                        List.of(d), List.of(), dir.resolve("report.txt")))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining(
                        "1 tables differ from Spark in a way ExpectedDifferences does not list")
                .hasMessageContaining(
                        "seed 7, round 2, query win5 (events_5min), api table, parallelism 4")
                .hasMessageContaining(
                        "only in Spark:  "
                                + " 2025-03-01T00:00:00.000Z,2025-03-01T00:05:00.000Z,view,2,3.5");
    }

    @Test
    void aListedDifferenceIsReportedNotFailed() throws Exception {
        TableDiff d = diff(DiffQuery.SLIDING, List.of("h", "a"), List.of("h", "b"));
        SparkDiffITCase.judge(
                List.of(d),
                List.of(ExpectedDifferences.rows("sliding", ExpectedDifferences.BOTH, "p", "r")),
                dir.resolve("report.txt"));
        assertThat(dir.resolve("report.txt"))
                .content()
                .contains("known rows (p)", "only in project: b");
    }

    @Test
    void aListedRowDifferenceDoesNotCoverAPrecisionDifferenceNorTheOtherApi() {
        TableDiff precision =
                diff(
                        DiffQuery.BRONZE,
                        List.of(HEADER, "1,1,view,2025-03-01T00:00:00.250123Z,1.0"),
                        List.of(HEADER, "1,1,view,2025-03-01T00:00:00.250Z,1.0"));
        assertThatThrownBy(
                        () ->
                                SparkDiffITCase.judge(
                                        List.of(precision),
                                        List.of(
                                                ExpectedDifferences.rows(
                                                        "bronze",
                                                        ExpectedDifferences.BOTH,
                                                        "p",
                                                        "r")),
                                        dir.resolve("report.txt")))
                .hasMessageContaining("UNEXPECTED precision");
        TableDiff rows = diff(DiffQuery.SLIDING, List.of("h", "a"), List.of("h", "b"));
        assertThatThrownBy(
                        () ->
                                SparkDiffITCase.judge(
                                        List.of(rows),
                                        List.of(
                                                ExpectedDifferences.rows(
                                                        "sliding", "datastream", "p", "r")),
                                        dir.resolve("report.txt")))
                .hasMessageContaining("UNEXPECTED rows");
    }

    @Test
    void aListedDifferenceThatNoTableShowsFailsSoTheListShrinksWithTheFixes() {
        TableDiff same = diff(DiffQuery.SLIDING, List.of("h", "a"), List.of("h", "a"));
        assertThatThrownBy(
                        () ->
                                SparkDiffITCase.judge(
                                        List.of(same),
                                        List.of(
                                                ExpectedDifferences.rows(
                                                        "sliding",
                                                        ExpectedDifferences.BOTH,
                                                        "issue 13 point 2",
                                                        "r")),
                                        dir.resolve("report.txt")))
                .hasMessageContaining("expected differences that no table showed")
                .hasMessageContaining("sliding [both APIs] rows (issue 13 point 2)");
    }
}
