package org.flinkss.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.flinkss.progress.Fragments;

import java.util.ArrayList;
import java.util.List;

/**
 * What makes a query the same query for its checkpoint (Spark's rule): its sources, its sinks and
 * its stateful operators. Filters, rate limits and the trigger may change between runs.
 *
 * <p>Record tables (a source's {@code <table>_skipped_files}) are kept beside the identity, not in
 * it: they are the source's bookkeeping, written whether or not anything is skipped, and a
 * checkpoint made before they existed is the same query's. They are listed so that {@code reset}
 * empties them too.
 */
public final class QueryIdentity {

    private final String name;
    private final List<String> sources;
    private final List<String> sinks;
    private final List<String> stateful;
    private final List<String> records;

    public QueryIdentity(String name, List<String> sources, List<String> sinks, List<String> stateful) {
        this(name, sources, sinks, stateful, List.of());
    }

    public QueryIdentity(String name, List<String> sources, List<String> sinks, List<String> stateful, List<String> records) {
        this.name = name;
        this.sources = List.copyOf(sources);
        this.sinks = List.copyOf(sinks);
        this.stateful = List.copyOf(stateful);
        this.records = List.copyOf(records);
    }

    public String name() {
        return name;
    }

    /** The record tables, which {@link #sameQuery} does not compare. */
    public List<String> records() {
        return records;
    }

    public boolean sameQuery(QueryIdentity other) {
        return name.equals(other.name) && sources.equals(other.sources) && sinks.equals(other.sinks)
                && stateful.equals(other.stateful);
    }

    public String describe() {
        return "'" + name + "' (sources " + sources + ", sinks " + sinks + (stateful.isEmpty() ? "" : ", stateful " + stateful) + ")";
    }

    ObjectNode toJson() {
        ObjectNode node = Fragments.JSON.createObjectNode();
        node.put("name", name);
        sources.forEach(node.putArray("sources")::add);
        sinks.forEach(node.putArray("sinks")::add);
        stateful.forEach(node.putArray("stateful")::add);
        if (!records.isEmpty()) {
            records.forEach(node.putArray("records")::add);
        }
        return node;
    }

    /** The query id kept in a checkpoint's {@code metadata.json}. */
    static String idIn(java.nio.file.Path metadata) {
        try {
            String id = Fragments.JSON.readTree(metadata.toFile()).path("id").asText("");
            if (id.isEmpty()) {
                throw new IllegalStateException("no query id in " + metadata);
            }
            return id;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot read the query id in " + metadata + ": " + e.getMessage(), e);
        }
    }

    static QueryIdentity fromJson(JsonNode node) {
        return new QueryIdentity(node.path("name").asText(), texts(node.path("sources")), texts(node.path("sinks")),
                texts(node.path("stateful")), texts(node.path("records")));
    }

    private static List<String> texts(JsonNode array) {
        List<String> list = new ArrayList<>();
        array.forEach(n -> list.add(n.asText()));
        return list;
    }
}
