package org.flinkss.jobs.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A query's expectation counts summed over its batches, and the report's table of them. */
class ExpectationTallyTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static ObjectNode progress(long batchId, String expectations) throws Exception {
        return (ObjectNode)
                JSON.readTree(
                        "{\"batchId\": "
                                + batchId
                                + ", \"numInputRows\": 10, \"sources\": [{}],"
                                + " \"stateOperators\": []"
                                + expectations
                                + "}");
    }

    @Test
    void countsAreSummedPerTableAndRuleAndABatchWithoutRulesCountsNothing() throws Exception {
        List<ObjectNode> batches =
                List.of(
                        progress(
                                0,
                                ", \"expectations\": [{\"table\": \"events_bronze\", \"rule\":"
                                        + " \"positive_amount\", \"action\": \"drop\", \"passed\":"
                                        + " 8, \"failed\": 2}]"),
                        progress(1, ""),
                        progress(
                                2,
                                ", \"expectations\": [{\"table\": \"events_bronze\", \"rule\":"
                                        + " \"positive_amount\", \"action\": \"warn\", \"passed\":"
                                        + " 9, \"failed\": 1}, {\"table\": \"events_bronze\","
                                        + " \"rule\": \"known_type\", \"action\": \"fail\","
                                        + " \"passed\": 10, \"failed\": 0}]"));

        List<ExpectationTally> tallies = ExpectationTally.of("bronze", batches);

        assertThat(tallies)
                .containsExactly(
                        new ExpectationTally(
                                "bronze", "events_bronze", "positive_amount", "warn", 17, 3, 2),
                        new ExpectationTally(
                                "bronze", "events_bronze", "known_type", "fail", 10, 0, 1));

        String page =
                ReportPage.render(
                        new ReportData(
                                "data",
                                Instant.parse("2025-03-01T00:00:00Z"),
                                List.of(),
                                List.of(),
                                List.of(),
                                List.of(),
                                tallies,
                                List.of()));
        assertThat(page)
                .contains(
                        "<tr><td class=\"name\">bronze</td><td>events_bronze</td>"
                                + "<td>positive_amount</td><td>warn</td><td>17</td><td>3</td>"
                                + "<td>2</td></tr>")
                .contains("No table of rows left out by an expectation's drop rule.");
    }
}
