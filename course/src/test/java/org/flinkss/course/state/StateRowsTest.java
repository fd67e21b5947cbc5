package org.flinkss.course.state;

import org.apache.flink.types.Row;

import org.junit.jupiter.api.Test;

import org.flinkss.course.operators.CountAndSum;
import org.flinkss.course.queries.Api;
import org.flinkss.course.queries.QueryCatalog;
import org.flinkss.course.queries.WindowQuery;
import org.flinkss.runtime.operators.NullableKey;
import org.flinkss.runtime.state.KeyedStateView;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The rows {@code state show} makes of the course's operator state, and which views exist. */
class StateRowsTest {

    private static CountAndSum acc(long end, long events, double amount, boolean hasAmount) {
        CountAndSum acc = new CountAndSum();
        acc.end = end;
        acc.events = events;
        acc.amount = amount;
        acc.hasAmount = hasAmount;
        return acc;
    }

    @Test
    void aFixedWindowIsARowOfItsTableInMilliseconds() {
        long start = Instant.parse("2025-03-01T00:05:00Z").toEpochMilli();
        Row row =
                WindowStateView.row(
                        "buy", start, acc(start + 300_000, 3, 10.005, true), false, false);
        assertThat(row)
                .isEqualTo(
                        Row.of(
                                Instant.parse("2025-03-01T00:05:00Z"),
                                Instant.parse("2025-03-01T00:10:00Z"),
                                "buy",
                                3L,
                                10.01));
    }

    @Test
    void aSessionIsInMicrosecondsKeyedByAnIntUser() {
        long start = Instant.parse("2025-03-01T00:00:10.000001Z").toEpochMilli() * 1000 + 1;
        Row row =
                WindowStateView.row("42", start, acc(start + 120_000_000, 1, 0, false), true, true);
        assertThat(row.getField(0)).isEqualTo(Instant.parse("2025-03-01T00:00:10.000001Z"));
        assertThat(row.getField(1)).isEqualTo(Instant.parse("2025-03-01T00:02:10.000001Z"));
        assertThat(row.getField(2)).isEqualTo(42);
        assertThat(row.getField(4)).as("Spark's sum of only nulls").isNull();
    }

    @Test
    void theNullKeyIsShownAsNull() {
        Row window =
                WindowStateView.row(
                        WindowQuery.NULL_KEY, 0, acc(300_000, 1, 1, true), false, false);
        assertThat(window.getField(2)).isNull();
        assertThat(DedupStateView.row(NullableKey.of((Long) null), 600_000))
                .isEqualTo(Row.of(null, Instant.parse("1970-01-01T00:10:00Z")));
        assertThat(DedupStateView.row(NullableKey.of(7L), 600_000).getField(0)).isEqualTo(7L);
    }

    @Test
    void viewsReadTheOperatorsTheQueriesBuild() {
        KeyedStateView<?> win5 = StateViews.of(QueryCatalog.WIN5).get(0);
        assertThat(win5.uid()).isEqualTo("window-win5");
        assertThat(win5.columns())
                .containsExactlyElementsOf(
                        WindowQuery.win5(Api.DATASTREAM).rowType().getFieldNames());
        assertThat(StateViews.of(QueryCatalog.SESSIONS).get(0).stateNames())
                .containsExactly("windows", "session-index");
        assertThat(StateViews.of(QueryCatalog.DEDUP).get(0).uid()).isEqualTo("dedupe-dedup");
        assertThat(StateViews.of(QueryCatalog.BRONZE)).isEmpty();
        assertThat(StateViews.readable())
                .containsExactly(
                        "win5",
                        "sliding",
                        "sessions",
                        "dedup",
                        "silver",
                        "gold",
                        "view-then-buy",
                        "view-then-buy-outer")
                .doesNotContain("latest", "enriched");
        assertThat(StateViews.madeByTableApi(List.of("window[table]: tumbling 5 min"))).isTrue();
        assertThat(StateViews.madeByTableApi(List.of("window[datastream]: tumbling 5 min")))
                .isFalse();
    }

    @Test
    void theJoinsBufferedRowsAreItsViewsAndBuys() {
        long t = Instant.parse("2025-03-01T00:00:10Z").toEpochMilli() * 1000;
        long[] stored = {7, t, 1, 0, t + 5, 2};
        assertThat(ViewThenBuyStateView.rows(NullableKey.of(12), "view", stored))
                .containsExactly(
                        Row.of(12, "view", 7L, Instant.parse("2025-03-01T00:00:10Z"), true),
                        Row.of(
                                12,
                                "view",
                                null,
                                Instant.parse("2025-03-01T00:00:10.000005Z"),
                                false));
        assertThat(ViewThenBuyStateView.rows(NullableKey.of(12), "buy", new long[] {9, t, 0}))
                .containsExactly(
                        Row.of(12, "buy", 9L, Instant.parse("2025-03-01T00:00:10Z"), null));
        assertThat(StateViews.of(QueryCatalog.VIEW_THEN_BUY_OUTER).get(0).uid())
                .isEqualTo("join-view-then-buy-outer");
    }
}
