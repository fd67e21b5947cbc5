package org.flinkss.jobs.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An expectation of a query over all its batches, as the report shows it: the sums of the progress
 * objects' {@code expectations} entries (Lakeflow's data-quality counts), by table and rule. A
 * rule's action is the one its newest batch ran with: rules may change between runs.
 *
 * @param query the query
 * @param table the table the rule checks
 * @param rule the rule's name
 * @param action warn, drop or fail
 * @param passed rows that passed, over all batches
 * @param failed rows that failed (kept for warn, left out for drop)
 * @param batches the batches that checked the rule
 */
public record ExpectationTally(
        String query,
        String table,
        String rule,
        String action,
        long passed,
        long failed,
        int batches) {

    /** The rules checked by the batches of {@code query}, in the order they first appear. */
    public static List<ExpectationTally> of(String query, List<ObjectNode> progress) {
        Map<String, ExpectationTally> tallies = new LinkedHashMap<>();
        for (ObjectNode p : progress) {
            for (JsonNode e : p.path("expectations")) {
                String table = e.path("table").asText();
                String rule = e.path("rule").asText();
                tallies.merge(
                        table + "." + rule,
                        new ExpectationTally(
                                query,
                                table,
                                rule,
                                e.path("action").asText(),
                                e.path("passed").asLong(),
                                e.path("failed").asLong(),
                                1),
                        (before, now) ->
                                new ExpectationTally(
                                        query,
                                        table,
                                        rule,
                                        now.action,
                                        before.passed + now.passed,
                                        before.failed + now.failed,
                                        before.batches + 1));
            }
        }
        return new ArrayList<>(tallies.values());
    }
}
