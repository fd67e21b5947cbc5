package org.flinkss.runtime.table.delta;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * The {@code stats} of an {@code add} action (Delta's JSON: {@code numRecords}, {@code minValues},
 * {@code maxValues}, {@code nullCount}) as a {@link DataFile}'s statistics. Nested columns are left
 * out: the tables here have none, and a key is a top-level column.
 */
final class AddStatistics {

    private static final ObjectMapper JSON = new ObjectMapper();

    private AddStatistics() {}

    static DataFile parse(String path, long size, long modificationTime, @Nullable String stats) {
        if (stats == null || stats.isEmpty()) {
            return DataFile.of(path, size, modificationTime, -1);
        }
        try {
            JsonNode root = JSON.readTree(stats);
            long records = root.path("numRecords").asLong(-1);
            Map<String, Long> nulls = new HashMap<>();
            root.path("nullCount")
                    .fields()
                    .forEachRemaining(
                            e -> {
                                if (e.getValue().isIntegralNumber()) {
                                    nulls.put(e.getKey(), e.getValue().asLong());
                                }
                            });
            return new DataFile(
                    path,
                    size,
                    modificationTime,
                    records,
                    values(root.path("minValues")),
                    values(root.path("maxValues")),
                    nulls);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot read the statistics of " + path + " (" + stats + ")", e);
        }
    }

    private static Map<String, Object> values(JsonNode node) {
        Map<String, Object> values = new HashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode v = e.getValue();
            if (v.isIntegralNumber() && v.canConvertToLong()) {
                values.put(e.getKey(), v.asLong());
            } else if (v.isFloatingPointNumber()) {
                values.put(e.getKey(), v.asDouble());
            } else if (v.isTextual()) {
                values.put(e.getKey(), v.asText());
            }
        }
        return values;
    }
}
