package org.flinkss.course.event;

import org.apache.flink.core.fs.FileStatus;

import org.flinkss.runtime.storage.Storage;

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
 * The landing folder's layout, as Spark's {@code df.coalesce(1).write.mode("overwrite").json(dir)}
 * leaves it: {@code batch_<n>/part-00000-<uuid>-c000.json} (one JSON line per event) beside an
 * empty {@code _SUCCESS} marker.
 *
 * <p>A batch folder appears complete or not at all: it is written under a hidden name (file
 * sources, Spark's and Flink's, skip names starting with {@code _} or {@code .}) and renamed into
 * place. Rewriting a batch gives the part file a new name, so a file source that has already read
 * the old one reads the new one as new, as with Spark.
 *
 * <p>On an object store ({@code s3://bucket/prefix/events}) there is no rename: each object appears
 * whole with one {@code PutObject}. The old batch's objects are deleted first, then the part file
 * and {@code _SUCCESS} are put, so a reader sees the old part file, none, or the new one (never
 * both, which would read the batch twice), and never a part of a file.
 */
public final class EventFiles {

    private EventFiles() {}

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
                appendLines(out, events);
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
     * Replaces {@code <eventsDir>/batch_<batch>} with one part file holding {@code events}, on any
     * storage Flink's file system serves: a local folder as {@link #writeBatch(Path, int, List)}
     * does, an object store as the class says.
     *
     * @return the batch folder
     */
    public static org.apache.flink.core.fs.Path writeBatch(
            org.apache.flink.core.fs.Path eventsDir, int batch, List<Event> events) {
        if (Storage.isLocal(eventsDir)) {
            return Storage.location(
                    writeBatch(Storage.localFile(eventsDir, "the landing folder"), batch, events));
        }
        org.apache.flink.core.fs.Path target =
                new org.apache.flink.core.fs.Path(eventsDir, "batch_" + batch);
        try {
            StringBuilder lines = new StringBuilder(events.size() * 128);
            appendLines(lines, events);
            byte[] content = lines.toString().getBytes(StandardCharsets.UTF_8);
            for (FileStatus old : Storage.list(target)) {
                Storage.deleteTree(old.getPath());
            }
            org.apache.flink.core.fs.Path part =
                    new org.apache.flink.core.fs.Path(
                            target, "part-00000-" + UUID.randomUUID() + "-c000.json");
            Storage.replace(part, content);
            Storage.replace(new org.apache.flink.core.fs.Path(target, "_SUCCESS"), new byte[0]);
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + target + ": " + e.getMessage(), e);
        }
    }

    private static void appendLines(Appendable out, List<Event> events) throws IOException {
        StringBuilder line = new StringBuilder(128);
        for (Event event : events) {
            line.setLength(0);
            out.append(EventJsonWriter.appendJson(line, event).append('\n'));
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
