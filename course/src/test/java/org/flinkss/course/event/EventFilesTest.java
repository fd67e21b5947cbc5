package org.flinkss.course.event;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class EventFilesTest {

    private static final String PART_FILE = "part-00000-[0-9a-f-]{36}-c000\\.json";

    @TempDir Path eventsDir;

    @Test
    void writesOnePartFileOfJsonLinesBesideASuccessMarker() throws IOException {
        List<Event> events = EventGenerator.events(0, 5);

        Path batch = LocalEventFiles.writeBatch(eventsDir, 1, events);

        assertThat(batch).isEqualTo(eventsDir.resolve("batch_1"));
        assertThat(names(batch))
                .hasSize(2)
                .contains("_SUCCESS")
                .anyMatch(n -> n.matches(PART_FILE));
        assertThat(batch.resolve("_SUCCESS")).isEmptyFile();
        String content = Files.readString(partFile(batch), StandardCharsets.UTF_8);
        assertThat(content).isEqualTo(String.join("\n", EventJsonTest.SPARK_LINES) + "\n");
        assertThat(names(eventsDir)).containsExactly("batch_1");
    }

    @Test
    void rewritingABatchReplacesTheWholeFolder() throws IOException {
        Path first =
                partFile(LocalEventFiles.writeBatch(eventsDir, 3, EventGenerator.events(0, 5)));
        Files.writeString(eventsDir.resolve("batch_3").resolve("stray.json"), "{}\n");

        Path batch = LocalEventFiles.writeBatch(eventsDir, 3, List.of(EventJsonTest.LATE_EVENT));

        assertThat(names(batch)).hasSize(2).contains("_SUCCESS");
        // A new part file name: a file source that read the old one reads this one as new.
        assertThat(partFile(batch).getFileName()).isNotEqualTo(first.getFileName());
        assertThat(Files.readAllLines(partFile(batch)))
                .containsExactly(EventJsonTest.LATE_EVENT_LINE);
        assertThat(names(eventsDir)).containsExactly("batch_3");
    }

    @Test
    void anEmptyBatchHasAnEmptyPartFile() throws IOException {
        Path batch = LocalEventFiles.writeBatch(eventsDir, 2, List.of());

        assertThat(partFile(batch)).isEmptyFile();
        assertThat(LocalEventFiles.readAll(eventsDir)).isEmpty();
    }

    @Test
    void writesNonAsciiTextAsUtf8() throws IOException {
        Event event = new Event(1L, 1, "café", null, null);

        Path batch = LocalEventFiles.writeBatch(eventsDir, 1, List.of(event));

        String line = "{\"event_id\":1,\"user_id\":1,\"event_type\":\"café\"}\n";
        assertThat(Files.readAllBytes(partFile(batch)))
                .isEqualTo(line.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void readAllReadsEveryJsonFileBelowTheFolderAndSkipsHiddenOnesAndBlankLines()
            throws IOException {
        LocalEventFiles.writeBatch(eventsDir, 1, EventGenerator.events(0, 3));
        LocalEventFiles.writeBatch(eventsDir, 2, EventGenerator.events(3, 2));
        Path nested = Files.createDirectories(eventsDir.resolve("more/deeper"));
        Files.writeString(
                nested.resolve("extra.json"), "\n" + EventJsonTest.LATE_EVENT_LINE + "\n\n");
        Files.writeString(nested.resolve("notes.txt"), "not an event\n");
        Path hidden = Files.createDirectories(eventsDir.resolve("_staging-batch_9"));
        Files.writeString(hidden.resolve("part-00000.json"), "{\"event_id\":-1}\n");
        Files.writeString(eventsDir.resolve(".hidden.json"), "{\"event_id\":-2}\n");

        List<Event> events = LocalEventFiles.readAll(eventsDir);

        List<Event> expected = new ArrayList<>(EventGenerator.events(0, 5));
        expected.add(EventJsonTest.LATE_EVENT);
        assertThat(events).containsExactlyElementsOf(expected);
    }

    static Path partFile(Path batch) throws IOException {
        try (Stream<Path> files = Files.list(batch)) {
            List<Path> parts =
                    files.filter(f -> f.getFileName().toString().matches(PART_FILE))
                            .collect(Collectors.toList());
            assertThat(parts).hasSize(1);
            return parts.get(0);
        }
    }

    private static List<String> names(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).sorted().collect(Collectors.toList());
        }
    }
}
