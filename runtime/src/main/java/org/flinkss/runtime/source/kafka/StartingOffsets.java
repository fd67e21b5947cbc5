package org.flinkss.runtime.source.kafka;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.Serializable;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * Spark's {@code startingOffsets}: {@code earliest}, {@code latest}, or per partition as JSON,
 * {@code {"topic":{"0":23,"1":-2}}}, where -2 means earliest and -1 latest. They apply only to a
 * query's first batch; afterwards the checkpoint says where to go on, and partitions that appear
 * later are read from their earliest offset (as in Spark).
 */
public final class StartingOffsets implements Serializable {

    private static final long serialVersionUID = 1L;

    public static final long EARLIEST = -2;
    public static final long LATEST = -1;

    private final String text;
    private final long all;

    /** topic -> partition -> offset, for the JSON form; null otherwise. */
    private final TreeMap<String, TreeMap<Integer, Long>> specific;

    private StartingOffsets(
            String text, long all, TreeMap<String, TreeMap<Integer, Long>> specific) {
        this.text = text;
        this.all = all;
        this.specific = specific;
    }

    public static StartingOffsets earliest() {
        return new StartingOffsets("earliest", EARLIEST, null);
    }

    public static StartingOffsets latest() {
        return new StartingOffsets("latest", LATEST, null);
    }

    /**
     * Parses {@code earliest}, {@code latest} or Spark's JSON; refuses anything else with a clear
     * message.
     */
    public static StartingOffsets parse(String text) {
        String t = text.trim();
        if (t.equalsIgnoreCase("earliest")) {
            return earliest();
        }
        if (t.equalsIgnoreCase("latest")) {
            return latest();
        }
        if (!t.startsWith("{")) {
            throw new IllegalArgumentException(
                    "startingOffsets '"
                            + text
                            + "': use earliest, latest, or JSON such as"
                            + " {\"events\":{\"0\":23,\"1\":-2}}");
        }
        TreeMap<String, TreeMap<Integer, Long>> offsets = new TreeMap<>();
        try {
            JsonNode root = new ObjectMapper().readTree(t);
            for (Iterator<Map.Entry<String, JsonNode>> topics = root.fields(); topics.hasNext(); ) {
                Map.Entry<String, JsonNode> topic = topics.next();
                if (!topic.getValue().isObject()) {
                    throw new IllegalArgumentException(
                            "startingOffsets: topic '"
                                    + topic.getKey()
                                    + "' needs an object of partition -> offset");
                }
                TreeMap<Integer, Long> partitions = new TreeMap<>();
                for (Iterator<Map.Entry<String, JsonNode>> ps = topic.getValue().fields();
                        ps.hasNext(); ) {
                    Map.Entry<String, JsonNode> p = ps.next();
                    int partition;
                    try {
                        partition = Integer.parseInt(p.getKey());
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException(
                                "startingOffsets: partition '"
                                        + p.getKey()
                                        + "' of topic '"
                                        + topic.getKey()
                                        + "' is not a number");
                    }
                    if (!p.getValue().canConvertToLong() || p.getValue().asLong() < EARLIEST) {
                        throw new IllegalArgumentException(
                                "startingOffsets: offset "
                                        + p.getValue()
                                        + " of "
                                        + topic.getKey()
                                        + "-"
                                        + partition
                                        + " must be an offset >= 0, -2 (earliest) or -1 (latest)");
                    }
                    partitions.put(partition, p.getValue().asLong());
                }
                offsets.put(topic.getKey(), partitions);
            }
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(
                    "startingOffsets is not valid JSON: "
                            + e.getOriginalMessage()
                            + " (expected e.g. {\"events\":{\"0\":23,\"1\":-2}})");
        }
        if (offsets.isEmpty()) {
            throw new IllegalArgumentException("startingOffsets {} names no partition");
        }
        return new StartingOffsets(t, 0, offsets);
    }

    public boolean isSpecific() {
        return specific != null;
    }

    /** -2 (earliest) or -1 (latest) for every partition; only when not {@link #isSpecific()}. */
    public long forAll() {
        return all;
    }

    /** topic -> partition -> offset (or -2, -1); only when {@link #isSpecific()}. */
    public Map<String, TreeMap<Integer, Long>> specific() {
        return specific;
    }

    @Override
    public String toString() {
        return text;
    }
}
