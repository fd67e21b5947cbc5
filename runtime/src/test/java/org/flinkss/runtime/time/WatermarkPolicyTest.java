package org.flinkss.runtime.time;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Spark's MultipleWatermarkPolicy: min follows the slowest node, max the fastest. */
class WatermarkPolicyTest {

    @Test
    void minChoosesTheSlowestNodeAndMaxTheFastest() {
        List<Long> nodes = List.of(600_000L, 0L, 1_200_000L);

        assertThat(WatermarkPolicy.MIN.choose(nodes)).isEqualTo(0L);
        assertThat(WatermarkPolicy.MAX.choose(nodes)).isEqualTo(1_200_000L);
        assertThat(WatermarkPolicy.DEFAULT).isEqualTo(WatermarkPolicy.MIN);
    }

    @Test
    void theTextIsSparksConfValueReadInAnyCaseAndAnythingElseIsRefusedNamingTheValues() {
        assertThat(WatermarkPolicy.parse("MAX")).isEqualTo(WatermarkPolicy.MAX);
        assertThat(WatermarkPolicy.parse(" min")).isEqualTo(WatermarkPolicy.MIN);
        assertThat(WatermarkPolicy.MAX.text()).isEqualTo("max");
        assertThatThrownBy(() -> WatermarkPolicy.parse("latest"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "'latest' is no watermark policy:"
                                + " spark.sql.streaming.multipleWatermarkPolicy is one of [min,"
                                + " max]");
    }

    @Test
    void thereIsNothingToChooseAmongNoNodes() {
        assertThatThrownBy(() -> WatermarkPolicy.MAX.choose(List.of()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
