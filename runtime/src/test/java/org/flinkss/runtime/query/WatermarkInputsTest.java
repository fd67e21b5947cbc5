package org.flinkss.runtime.query;

import org.junit.jupiter.api.Test;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.time.WatermarkPolicy;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Which queries record a watermark policy, and which refuse max. */
class WatermarkInputsTest {

    @Test
    void aQueryWithSeveralNodesOnOneSourceRecordsItsPolicyUnderSparksKey() {
        WatermarkInputs join = new WatermarkInputs("view-then-buy", WatermarkPolicy.MAX);
        join.add("events_bronze", 2);
        join.add("customers", 0);

        join.check();
        assertThat(join.conf())
                .isEqualTo(Map.of("spark.sql.streaming.multipleWatermarkPolicy", "max"));
    }

    @Test
    void aQueryWithOneNodeRecordsNothingAndRefusesMax() {
        WatermarkInputs win5 = new WatermarkInputs("win5", WatermarkPolicy.MIN);
        win5.add("events_bronze", 1);
        win5.check();
        assertThat(win5.conf()).isEmpty();

        WatermarkInputs max = new WatermarkInputs("win5", WatermarkPolicy.MAX);
        max.add("events_bronze", 1);
        assertThatThrownBy(max::check)
                .isInstanceOf(QueryException.class)
                .hasMessageStartingWith(
                        "query 'win5' has one watermark input: --watermark-policy max chooses"
                                + " among several");
    }

    @Test
    void nodesOnSeveralSourcesRecordMinAndRefuseMaxForFlinksJoinTakesTheMinimum() {
        WatermarkInputs min = new WatermarkInputs("mine", WatermarkPolicy.MIN);
        min.add("views", 1);
        min.add("buys", 1);
        min.check();
        assertThat(min.conf()).containsEntry(WatermarkPolicy.SPARK_CONF, "min");

        WatermarkInputs max = new WatermarkInputs("mine", WatermarkPolicy.MAX);
        max.add("views", 1);
        max.add("buys", 1);
        assertThatThrownBy(max::check)
                .isInstanceOf(QueryException.class)
                .hasMessageContaining("watermarked inputs on several sources [views, buys]");
    }
}
