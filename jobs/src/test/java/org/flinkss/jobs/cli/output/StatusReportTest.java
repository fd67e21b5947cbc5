package org.flinkss.jobs.cli.output;

import org.junit.jupiter.api.Test;

import org.flinkss.runtime.ops.QueryStatus;
import org.flinkss.runtime.time.WatermarkPolicy;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** What {@code status} reads of a checkpoint's identity: its API, output mode and flags. */
class StatusReportTest {

    private static QueryStatus madeOf(List<String> stateful, Map<String, List<String>> columns) {
        return madeOf(stateful, columns, Map.of());
    }

    private static QueryStatus madeOf(
            List<String> stateful, Map<String, List<String>> columns, Map<String, String> conf) {
        return new QueryStatus(
                "q", "cp", "id", List.of(), List.of(), columns, stateful, -1, null, 0, null,
                List.of(), null, conf);
    }

    @Test
    void aStatefulOperatorNamesTheApiAndTheOutputMode() {
        assertThat(
                        StatusReport.madeWith(
                                madeOf(
                                        List.of(
                                                "window[table]: tumbling 5 min by event_type,"
                                                    + " watermark 10 min, output mode complete"),
                                        Map.of())))
                .isEqualTo("API table, output mode complete");
    }

    @Test
    void aStatelessQueryHasNoApiOfItsOwnAndRescuedDataIsAColumn() {
        assertThat(
                        StatusReport.madeWith(
                                madeOf(
                                        List.of(),
                                        Map.of(
                                                "events_bronze",
                                                List.of(
                                                        "event_id BIGINT",
                                                        "_rescued_data STRING")))))
                .isEqualTo(
                        "API not recorded (no stateful operator: either API runs on it), output"
                                + " mode append, --rescued-data");
    }

    @Test
    void theWatermarkPolicyTheCheckpointKeepsIsAFlagItWasMadeWith() {
        assertThat(
                        StatusReport.madeWith(
                                madeOf(
                                        List.of(
                                                "join[datastream]: views then buys within 10 min,"
                                                        + " output mode append"),
                                        Map.of(),
                                        Map.of(WatermarkPolicy.SPARK_CONF, "max"))))
                .isEqualTo("API datastream, output mode append, --watermark-policy max");
    }
}
