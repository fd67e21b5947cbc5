package org.flinkss.runtime.sql;

import org.apache.flink.annotation.Internal;

import com.fasterxml.jackson.databind.JsonNode;

import org.flinkss.runtime.checkpoint.JsonFiles;
import org.flinkss.runtime.operators.LateRowRouter;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the optimized plan of a SQL file keeps state in, read from Flink's compiled plan: the
 * stateful operators, described without the names the planner makes up ({@code $f2}, {@code
 * EXPR$1}, aliases), which are the query's identity for its checkpoint (Spark's rule: a changed
 * aggregation, grouping key, window or join needs a new checkpoint; a changed filter or projection
 * does not); and, for each source table, Spark's lateness rule of the stateful operator its rows
 * reach first.
 */
@Internal
public final class PlanShape {

    /**
     * A source's stateful operator: its name in progress and Spark's rule for late rows, by kind:
     * {@code window} (tumbling or sliding: size and slide), {@code session} (gap) or {@code row}
     * (deduplication, interval joins).
     */
    public record Lateness(String operator, String kind, long sizeMillis, long slideMillis)
            implements Serializable {

        /** Spark's rule: which rows the operator drops, and from how many windows. */
        public LateRowRouter.Rule rule() {
            return switch (kind) {
                case "window" -> LateRowRouter.windowRule(sizeMillis, slideMillis);
                case "session" -> LateRowRouter.sessionRule(sizeMillis);
                default -> LateRowRouter.rowRule();
            };
        }

        /**
         * Whether a row without event time goes on: Spark's row rule is never true for a null time,
         * and a window holds no such row.
         */
        public boolean keepsRowsWithoutTime() {
            return kind.equals("row");
        }
    }

    private final List<String> stateful;
    private final Map<String, Lateness> lateness;
    private final Set<String> sources;

    private PlanShape(List<String> stateful, Map<String, Lateness> lateness, Set<String> sources) {
        this.stateful = List.copyOf(stateful);
        this.lateness = lateness;
        this.sources = sources;
    }

    /** The tables the plan reads, in the order it reads them. */
    public Set<String> sources() {
        return sources;
    }

    /** The stateful operators, in the order of the plan's trees. */
    public List<String> stateful() {
        return stateful;
    }

    /**
     * The lateness rule for rows of the source table {@code table}, or null when they reach no
     * stateful operator that a watermark drops rows for (or operators with different rules).
     */
    @Nullable
    public Lateness lateness(String table) {
        return lateness.get(table);
    }

    private record Node(String name, String args) {}

    private static final Set<String> LOCAL_PHASES =
            Set.of("LocalWindowAggregate", "LocalGroupAggregate");

    private static final Set<String> STATEFUL =
            Set.of(
                    "WindowAggregate",
                    "GlobalWindowAggregate",
                    "GroupWindowAggregate",
                    "GroupAggregate",
                    "GlobalGroupAggregate",
                    "IncrementalGroupAggregate",
                    "Deduplicate",
                    "WindowDeduplicate",
                    "Rank",
                    "WindowRank",
                    "Join",
                    "IntervalJoin",
                    "WindowJoin",
                    "TemporalJoin",
                    "OverAggregate",
                    "Match",
                    "ChangelogNormalize",
                    "Limit",
                    "SortLimit",
                    "Sort",
                    "TemporalSort");

    /**
     * Reads the optimized plan of a statement set as Flink compiles it ({@code
     * compilePlan().asJsonString()}: its nodes, with the descriptions {@code explain()} prints, and
     * the edges between them). Compiling plans the file without translating it into operators,
     * which {@code explain()} would do, building every source and sink once more.
     */
    public static PlanShape of(String compiledPlan) {
        JsonNode plan;
        try {
            plan = JsonFiles.JSON.readTree(compiledPlan);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read Flink's compiled plan", e);
        }
        Map<Integer, Node> nodes = new TreeMap<>();
        for (JsonNode n : plan.path("nodes")) {
            nodes.put(n.path("id").asInt(), node(n.path("description").asText()));
        }
        Map<Integer, List<Integer>> downstream = new HashMap<>();
        for (JsonNode e : plan.path("edges")) {
            downstream
                    .computeIfAbsent(e.path("source").asInt(), k -> new ArrayList<>())
                    .add(e.path("target").asInt());
        }
        List<String> stateful = new ArrayList<>();
        Map<String, Set<Lateness>> rules = new LinkedHashMap<>();
        for (Map.Entry<Integer, Node> entry : nodes.entrySet()) {
            Node node = entry.getValue();
            if (STATEFUL.contains(node.name)) {
                stateful.add(describe(node));
            }
            if (node.name.equals("TableSourceScan")) {
                Set<Lateness> found =
                        rules.computeIfAbsent(tableOf(node.args), t -> new LinkedHashSet<>());
                consumers(entry.getKey(), nodes, downstream, new HashSet<>(), found);
            }
        }
        Map<String, Lateness> single = new LinkedHashMap<>();
        rules.forEach(
                (table, found) -> {
                    if (found.size() == 1 && !found.contains(NONE)) {
                        single.put(table, found.iterator().next());
                    }
                });
        return new PlanShape(stateful, single, rules.keySet());
    }

    /** Stands for a path to a sink through no stateful operator, or one without a rule. */
    private static final Lateness NONE = new Lateness("none", "none", 0, 0);

    /** The lateness rules of the first stateful operators downstream of node {@code id}. */
    private static void consumers(
            int id,
            Map<Integer, Node> nodes,
            Map<Integer, List<Integer>> downstream,
            Set<Integer> seen,
            Set<Lateness> found) {
        for (int next : downstream.getOrDefault(id, List.of())) {
            if (!seen.add(next)) {
                continue;
            }
            Node node = nodes.get(next);
            if (STATEFUL.contains(node.name) || LOCAL_PHASES.contains(node.name)) {
                Lateness lateness = lateness(node);
                found.add(lateness == null ? NONE : lateness);
            } else if (node.name.equals("Sink")) {
                found.add(NONE);
            } else {
                consumers(next, nodes, downstream, seen, found);
            }
        }
    }

    private static final Pattern WINDOW =
            Pattern.compile("(TUMBLE|HOP|SESSION|CUMULATE)\\(([^()]*(?:\\([^()]*\\)[^()]*)*)\\)");
    private static final Pattern SIZE = Pattern.compile("size=\\[([^\\]]+)]");
    private static final Pattern SLIDE = Pattern.compile("slide=\\[([^\\]]+)]");
    private static final Pattern GAP = Pattern.compile("gap=\\[([^\\]]+)]");

    @Nullable
    private static Lateness lateness(Node node) {
        Matcher window = WINDOW.matcher(node.args);
        if (node.name.contains("Window") && window.find()) {
            String spec = window.group(2);
            switch (window.group(1)) {
                case "TUMBLE":
                    long size = millis(spec, SIZE);
                    return new Lateness("window", "window", size, size);
                case "HOP":
                    return new Lateness(
                            "window", "window", millis(spec, SIZE), millis(spec, SLIDE));
                case "SESSION":
                    long gap = millis(spec, GAP);
                    return new Lateness("window", "session", gap, gap);
                default:
                    return null;
            }
        }
        if (node.name.equals("Deduplicate") && node.args.contains("ROWTIME")) {
            return new Lateness("dedup", "row", 0, 0);
        }
        if (node.name.equals("IntervalJoin")) {
            return new Lateness("join", "row", 0, 0);
        }
        return null;
    }

    /** Flink's durations in plans: {@code 5 min}, {@code 10 s}, {@code 2 h}, {@code 500 ms}. */
    static long millis(String spec, Pattern field) {
        Matcher m = field.matcher(spec);
        if (!m.find()) {
            throw new IllegalStateException("no " + field.pattern() + " in window " + spec);
        }
        String[] parts = m.group(1).trim().split("\\s+");
        long amount = Long.parseLong(parts[0]);
        String unit = parts.length > 1 ? parts[1].toLowerCase(Locale.ROOT) : "ms";
        return switch (unit) {
            case "ms" -> amount;
            case "s" -> amount * 1_000L;
            case "min" -> amount * 60_000L;
            case "h" -> amount * 3_600_000L;
            case "d" -> amount * 86_400_000L;
            default -> throw new IllegalStateException("unknown unit in window " + spec);
        };
    }

    private static final Pattern MADE_UP_NAME = Pattern.compile("\\s+AS\\s+[\\w$]+|\\$f\\d+");

    /**
     * A stateful operator as the identity records it: its kind and arguments, without aliases and
     * the planner's own field names, so that a projection after it does not change it. Global and
     * single-phase aggregations read the same.
     */
    static String describe(Node node) {
        String name =
                node.name.startsWith("Global") ? node.name.substring("Global".length()) : node.name;
        String args = MADE_UP_NAME.matcher(node.args).replaceAll("");
        args = args.replaceAll("slice_end=\\[[^\\]]*],\\s*", "");
        args = args.replaceAll(",?\\s*(?:start|end|slice_end|window_time)\\('w\\$\\)", "");
        return name + "(" + args + ")";
    }

    private static String tableOf(String args) {
        // table=[[default_catalog, default_database, events_bronze, watermark=[...]]]
        Matcher m = Pattern.compile("table=\\[\\[([^\\]]*)").matcher(args);
        if (!m.find()) {
            return "";
        }
        String[] parts = m.group(1).split(",\\s*");
        return parts.length >= 3 ? parts[2].trim() : parts[parts.length - 1].trim();
    }

    private static Node node(String description) {
        int open = description.indexOf('(');
        int close = description.lastIndexOf(')');
        String name = open < 0 ? description.trim() : description.substring(0, open);
        String args = open < 0 || close < open ? "" : description.substring(open + 1, close);
        return new Node(name, args);
    }
}
