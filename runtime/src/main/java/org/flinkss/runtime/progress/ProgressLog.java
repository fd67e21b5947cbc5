package org.flinkss.runtime.progress;

import org.apache.flink.core.fs.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.JsonFiles;
import org.flinkss.runtime.checkpoint.LogCodec;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.time.Watermarks;

import javax.annotation.Nullable;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The progress a query's checkpoint keeps, Spark's {@code recentProgress} made durable: {@code
 * progress/log.jsonl} holds one progress object per committed batch, a line each, oldest first;
 * {@code progress/last.json} the last object printed (after a run with nothing new, the next unused
 * batch id with 0 rows, as Spark's {@code lastProgress}).
 *
 * <p>Unlike the checkpoint's other logs ({@link org.flinkss.runtime.checkpoint.CheckpointLog}, a
 * file per entry), this one is a single file that grows by a line per batch: {@code progress --all}
 * and the report read a query's whole history in one read (one GET on an object store, where a file
 * per batch would cost one each), and checkpoints of every version have it so. A line is appended
 * on a local disk; on an object store, which has no appends, the file is rewritten whole. A line
 * cut by a kill is skipped when read: its batch is in the checkpoint anyway.
 */
public final class ProgressLog {

    /** A progress object, one JSON line. */
    private static final LogCodec<ObjectNode> LINE =
            new LogCodec<>() {
                @Override
                public byte[] encode(ObjectNode progress) throws IOException {
                    return (JsonFiles.JSON.writeValueAsString(progress) + "\n")
                            .getBytes(StandardCharsets.UTF_8);
                }

                @Override
                public ObjectNode decode(byte[] line) throws IOException {
                    JsonNode node = JsonFiles.JSON.readTree(line);
                    if (!(node instanceof ObjectNode)) {
                        throw new IOException("not a progress object");
                    }
                    return (ObjectNode) node;
                }
            };

    private final CheckpointLayout layout;

    public ProgressLog(CheckpointLayout layout) {
        this.layout = layout;
    }

    /** Every committed batch's progress, oldest first. */
    public List<ObjectNode> all() {
        List<ObjectNode> all = new ArrayList<>();
        Path log = layout.progressLog();
        try {
            if (!Storage.exists(log)) {
                return all;
            }
            for (String line : Storage.readText(log).split("\n")) {
                if (!line.isBlank()) {
                    try {
                        all.add(LINE.decode(line.getBytes(StandardCharsets.UTF_8)));
                    } catch (IOException torn) {
                        // A line cut by a kill while it was written: the batch is in the checkpoint
                        // anyway.
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + log + ": " + e.getMessage(), e);
        }
        return all;
    }

    /** The id of the newest committed batch, -1 if none. */
    public long lastBatchId() {
        long max = -1;
        for (ObjectNode p : all()) {
            max = Math.max(max, p.path("batchId").asLong(-1));
        }
        return max;
    }

    /**
     * The watermark the newest committed batch ended with (its source's {@code watermarkAfter}), or
     * {@link Watermarks#NONE} if no batch was committed.
     */
    public long lastWatermark() {
        List<ObjectNode> history = all();
        if (history.isEmpty()) {
            return Watermarks.NONE;
        }
        return history.get(history.size() - 1)
                .path("sources")
                .path(0)
                .path("watermarkAfter")
                .asLong(Watermarks.NONE);
    }

    /** Appends the progress of a committed batch. */
    void add(ObjectNode progress) {
        try {
            byte[] line = LINE.encode(progress);
            if (layout.isObjectStore()) {
                // No appends on an object store: the log is rewritten whole, one PUT.
                Path log = layout.progressLog();
                String before = Storage.exists(log) ? Storage.readText(log) : "";
                Storage.replaceText(log, before + new String(line, StandardCharsets.UTF_8));
                return;
            }
            // A local disk appends, which no object store can: one line, whatever the history.
            File log = Storage.localFile(layout.progressLog(), "the progress log");
            Files.createDirectories(log.toPath().getParent());
            Files.write(log.toPath(), line, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            // A crash can still cut the line (a torn last line is skipped when read), never an
            // earlier one.
            Storage.sync(layout.progressLog());
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot append to the progress log: " + e.getMessage(), e);
        }
    }

    /** The last progress object printed for the query, or null if it never ran. */
    @Nullable
    public ObjectNode last() {
        Path last = layout.lastProgress();
        try {
            if (!Storage.exists(last)) {
                return null;
            }
            return (ObjectNode) JsonFiles.readTree(last);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + last + ": " + e.getMessage(), e);
        }
    }

    /** Replaces the last progress object printed (atomically). */
    void writeLast(ObjectNode progress) {
        JsonFiles.write(layout.lastProgress(), progress);
    }
}
