package org.flinkss.jobs.cli.output;

import org.junit.jupiter.api.Test;

import org.flinkss.runtime.ops.QueryStatus;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** What {@code status} reads of a checkpoint's identity: its API, output mode and flags. */
class StatusReportTest {

    private static QueryStatus madeOf(List<String> stateful, Map<String, List<String>> columns) {
        return new QueryStatus(
                "q", "cp", "id", List.of(), List.of(), columns, stateful, -1, null, 0, null,
                List.of(), null);
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
}
