package org.flinkss.runtime.sql;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.TableEnvironment;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the compiled plan of a SQL file says: its stateful operators without the planner's made-up
 * names, and per source the lateness rule of the stateful operator its rows reach.
 */
class PlanShapeTest {

    private static TableEnvironment tEnv;

    @BeforeAll
    static void tables() {
        tEnv = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE ev (user_id INT, event_type STRING, event_ts"
                        + " TIMESTAMP_LTZ(3), amount DOUBLE, WATERMARK FOR event_ts AS event_ts -"
                        + " INTERVAL '10' MINUTE) WITH ('connector' = 'datagen')");
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE out1 (k STRING, n BIGINT) WITH ('connector' ="
                        + " 'blackhole')");
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE out2 (k INT, n BIGINT) WITH ('connector' = 'blackhole')");
    }

    private static PlanShape plan(String... inserts) {
        StatementSet set = tEnv.createStatementSet();
        for (String insert : inserts) {
            set.addInsertSql(insert);
        }
        return PlanShape.of(set.compilePlan().asJsonString());
    }

    private static String hop(String where, String size) {
        return "INSERT INTO out2 SELECT user_id, COUNT(*) FROM TABLE(HOP(TABLE ev,"
                + " DESCRIPTOR(event_ts), INTERVAL '5' MINUTE, INTERVAL '"
                + size
                + "' MINUTE)) WHERE "
                + where
                + " GROUP BY window_start, window_end, user_id";
    }

    @Test
    void aSlidingWindowGivesSparksWindowRuleToItsSource() {
        PlanShape shape = plan(hop("amount > 1", "15"));

        assertThat(shape.sources()).containsExactly("ev");
        PlanShape.Lateness lateness = shape.lateness("ev");
        assertThat(lateness).isNotNull();
        assertThat(lateness.operator()).isEqualTo("window");
        assertThat(lateness.sizeMillis()).isEqualTo(Duration.ofMinutes(15).toMillis());
        assertThat(lateness.slideMillis()).isEqualTo(Duration.ofMinutes(5).toMillis());
        // A row at 00:01 with the watermark at 00:10: its window [23:50, 00:05) has ended, its
        // windows [23:55, 00:10) too (end at the watermark), [00:00, 00:15) has not: kept there.
        long row = Duration.ofMinutes(1).toMillis() * 1000;
        long watermark = Duration.ofMinutes(10).toMillis();
        assertThat(lateness.rule().isLate(row, watermark)).isFalse();
        assertThat(lateness.rule().closedWindows(row, watermark)).isEqualTo(2);
        assertThat(shape.stateful())
                .singleElement()
                .asString()
                .startsWith("WindowAggregate(")
                .contains("HOP(size=[15 min], slide=[5 min])")
                .doesNotContain("$f", " AS ");
    }

    @Test
    void aChangedFilterKeepsTheStatefulOperatorsAndAChangedWindowDoesNot() {
        PlanShape first = plan(hop("amount > 1", "15"));
        PlanShape filtered = plan(hop("amount > 20 AND event_type <> 'view'", "15"));
        PlanShape wider = plan(hop("amount > 1", "20"));

        assertThat(filtered.stateful()).isEqualTo(first.stateful());
        assertThat(wider.stateful()).isNotEqualTo(first.stateful());
    }

    @Test
    void anAggregationWithoutAWindowHasNoLatenessRule() {
        PlanShape shape =
                plan("INSERT INTO out1 SELECT event_type, COUNT(*) FROM ev GROUP BY event_type");

        assertThat(shape.lateness("ev")).isNull();
        assertThat(shape.stateful()).singleElement().asString().startsWith("GroupAggregate(");
    }

    @Test
    void aSourceThatAlsoReachesASinkDirectlyHasNoLatenessRule() {
        PlanShape shape =
                plan(
                        hop("amount > 1", "15"),
                        "INSERT INTO out2 SELECT user_id, CAST(amount AS BIGINT) FROM ev");

        assertThat(shape.lateness("ev")).isNull();
    }
}
