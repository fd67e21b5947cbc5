package org.flinkss.course.event;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * {@link EventFiles} in a local landing folder, where the local file system is the point: a batch
 * folder is written under a hidden name and renamed into place (one atomic rename, which an object
 * store has not), so a reader lists the old batch, none, or the new one. Also reads a local landing
 * folder back, as tests and the benchmark do.
 */
public final class LocalEventFiles {

    private LocalEventFiles() {}

    /**
     * Replaces {@code <eventsDir>/batch_<batch>} with one part file holding {@code events}.
     *
     * @return the batch folder
     */
    public static Path writeBatch(Path eventsDir, int batch, List<Event> events) {
        Path target = eventsDir.resolve("batch_" + batch);
        String hiddenSuffix = "batch_" + batch + "-" + UUID.randomUUID();
        Path staging = eventsDir.resolve("_staging-" + hiddenSuffix);
        Path replaced = eventsDir.resolve("_replaced-" + hiddenSuffix);
        try {
            Files.createDirectories(staging);
            Path part = staging.resolve("part-00000-" + UUID.randomUUID() + "-c000.json");
            try (BufferedWriter out = Files.newBufferedWriter(part, StandardCharsets.UTF_8)) {
                EventFiles.appendLines(out, events);
            }
            Files.createFile(staging.resolve("_SUCCESS"));
            // Moving the old folder aside first (rather than deleting it in place) means a reader
            // never lists a half-deleted batch: it sees the old batch, none, or the new one.
            boolean hadOld = Files.exists(target);
            if (hadOld) {
                Files.move(target, replaced, StandardCopyOption.ATOMIC_MOVE);
            }
            Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
            if (hadOld) {
                deleteRecursively(replaced);
            }
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + target, e);
        }
    }

    /**
     * Parses every {@code *.json} file below {@code dir}, in path order, skipping hidden files and
     * folders and blank lines as Spark's file source does.
     */
    public static List<Event> readAll(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            List<Path> files =
                    paths.filter(Files::isRegularFile)
                            .filter(f -> f.getFileName().toString().endsWith(".json"))
                            .filter(f -> !isHiddenBelow(dir, f))
                            .sorted()
                            .collect(Collectors.toList());
            List<Event> events = new ArrayList<>();
            for (Path file : files) {
                for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    if (!line.isBlank()) {
                        events.add(EventJson.parse(line));
                    }
                }
            }
            return events;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + dir, e);
        }
    }

    private static boolean isHiddenBelow(Path dir, Path file) {
        for (Path name : dir.relativize(file)) {
            String s = name.toString();
            if (s.startsWith("_") || s.startsWith(".")) {
                return true;
            }
        }
        return false;
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
                Files.delete(p);
            }
        }
    }
}
