package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.Path;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.flinkss.runtime.table.delta.TestRows.EVENTS;
import static org.flinkss.runtime.table.delta.TestRows.events;

/**
 * Statistics are optional in a Delta log: a file another writer added without them is counted by
 * reading its footer (issue 38: {@code table count} added -1 per such file, 3199 for 3500).
 */
class CountWithoutStatisticsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir java.nio.file.Path dir;

    @Test
    void aDataFileWhoseAddHasNoStatisticsIsCountedFromTheFile() throws Exception {
        DeltaTable table = DeltaTable.forPath(dir.resolve("t").toString());
        table.create(EVENTS, Map.of());
        table.append(
                "q", 0, List.of(DataFiles.write(new Path(table.path()), EVENTS, events(0, 30))));
        table.append(
                "q", 1, List.of(DataFiles.write(new Path(table.path()), EVENTS, events(30, 12))));

        // Step 1: version 2's add loses its optional "stats", as another writer may write it.
        java.nio.file.Path commit = dir.resolve("t/_delta_log/00000000000000000002.json");
        List<String> lines = new ArrayList<>();
        for (String line : Files.readAllLines(commit)) {
            ObjectNode action = (ObjectNode) JSON.readTree(line);
            if (action.has("add")) {
                ((ObjectNode) action.get("add")).remove("stats");
            }
            lines.add(JSON.writeValueAsString(action));
        }
        Files.write(commit, lines);
        Files.deleteIfExists(dir.resolve("t/_delta_log/00000000000000000002.crc"));

        // Step 2: the count reads that file's footer: 42 rows, not 30 + (-1).
        DeltaSnapshot snapshot = DeltaTable.forPath(table.path()).snapshot();
        assertThat(snapshot.files()).extracting(DataFile::numRecords).contains(-1L);
        assertThat(snapshot.count()).isEqualTo(42);
    }
}
