package org.flinkss.course.event;

import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.storage.Storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;

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
     * Replaces {@code <eventsDir>/batch_<batch>} with one part file holding {@code events}, on any
     * storage Flink's file system serves: a local folder with renames ({@link LocalEventFiles}), an
     * object store as the class says.
     *
     * @return the batch folder
     */
    public static Path writeBatch(Path eventsDir, int batch, List<Event> events) {
        if (Storage.isLocal(eventsDir)) {
            return Storage.location(
                    LocalEventFiles.writeBatch(
                                    Storage.localFile(eventsDir, "the landing folder").toPath(),
                                    batch,
                                    events)
                            .toFile());
        }
        Path target = new Path(eventsDir, "batch_" + batch);
        try {
            StringBuilder lines = new StringBuilder(events.size() * 128);
            appendLines(lines, events);
            byte[] content = lines.toString().getBytes(StandardCharsets.UTF_8);
            for (FileStatus old : Storage.list(target)) {
                Storage.deleteTree(old.getPath());
            }
            Path part = new Path(target, "part-00000-" + UUID.randomUUID() + "-c000.json");
            Storage.replace(part, content);
            Storage.replace(new Path(target, "_SUCCESS"), new byte[0]);
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + target + ": " + e.getMessage(), e);
        }
    }

    static void appendLines(Appendable out, List<Event> events) throws IOException {
        StringBuilder line = new StringBuilder(128);
        for (Event event : events) {
            line.setLength(0);
            out.append(EventJsonWriter.appendJson(line, event).append('\n'));
        }
    }
}
