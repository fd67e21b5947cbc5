package org.flinkss.runtime.query;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.time.WatermarkPolicy;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code withWatermark} nodes of one query, by source, and the run's {@code --watermark-policy}
 * for them: which policy the sources use, what the checkpoint records, and which runs are refused.
 *
 * <p>Spark applies its policy to every query and records it in every checkpoint; it only matters
 * where there are several nodes. Here a query with several nodes records it ({@link #conf}); a
 * query with fewer refuses {@code max}, which could change nothing there, so that a user who asks
 * for it is not left believing it applied. The policy is applied by a source to its own nodes (the
 * course's view-then-buy: views and buys on one read of bronze). A {@code sql --file} query reads
 * one source and its table has one {@code WATERMARK} clause, so it has one node and refuses {@code
 * max}. Nodes on different sources (a Java query of two watermarked sources) meet in Flink's
 * operators, which take the minimum of their inputs' watermarks, so {@code max} is refused there
 * too.
 */
final class WatermarkInputs {

    private final String queryName;
    private final WatermarkPolicy policy;
    private final Map<String, Integer> nodesBySource = new LinkedHashMap<>();

    WatermarkInputs(String queryName, WatermarkPolicy policy) {
        this.queryName = queryName;
        this.policy = policy;
    }

    /** The policy a source applies to its nodes. */
    WatermarkPolicy policy() {
        return policy;
    }

    /** Records a source of the query with {@code nodes} watermark nodes (0: no watermark). */
    void add(String source, int nodes) {
        if (nodes > 0) {
            nodesBySource.put(source, nodes);
        }
    }

    private int nodes() {
        return nodesBySource.values().stream().mapToInt(Integer::intValue).sum();
    }

    /**
     * What the checkpoint keeps: the policy, for a query with several watermark nodes; nothing
     * otherwise.
     */
    Map<String, String> conf() {
        return nodes() < 2 ? Map.of() : Map.of(WatermarkPolicy.SPARK_CONF, policy.text());
    }

    /**
     * Refuses {@code max} on a query with fewer than two watermark nodes, or with nodes on more
     * than one source, before anything runs.
     */
    void check() {
        if (policy == WatermarkPolicy.DEFAULT) {
            return;
        }
        if (nodes() < 2) {
            throw new QueryException(
                    "query '"
                            + queryName
                            + "' has "
                            + (nodes() == 0 ? "no watermark" : "one watermark input")
                            + ": --watermark-policy "
                            + policy.text()
                            + " chooses among several (Spark's "
                            + WatermarkPolicy.SPARK_CONF
                            + "), so it would change nothing here. Leave the option out; it is"
                            + " for queries that join several watermarked inputs, such as"
                            + " view-then-buy. Nothing was run.");
        }
        if (nodesBySource.size() > 1) {
            throw new QueryException(
                    "query '"
                            + queryName
                            + "' has watermarked inputs on several sources "
                            + nodesBySource.keySet()
                            + ": --watermark-policy "
                            + policy.text()
                            + " is applied among the watermark inputs of one source, and here"
                            + " each source fixes its own watermark and the join takes the"
                            + " minimum of them, so only min (the default) is available for this"
                            + " query. Leave the option out. Nothing was run.");
        }
    }
}
