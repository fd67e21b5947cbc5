package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.MapType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One version's log entry ({@code _delta_log/<version>.json}), as this project reads it: the files
 * it added and removed, its {@code txn} action and its {@code commitInfo}. Read with Kernel's JSON
 * handler from that one file: neither the table's folder nor its log is listed.
 */
final class LogEntry {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The parts of a commit entry that reading a range of versions needs. */
    private static final StructType COMMIT_SCHEMA =
            new StructType()
                    .add(
                            "add",
                            new StructType()
                                    .add("path", StringType.STRING)
                                    .add("size", LongType.LONG)
                                    .add("modificationTime", LongType.LONG)
                                    .add("dataChange", BooleanType.BOOLEAN)
                                    .add("stats", StringType.STRING))
                    .add(
                            "remove",
                            new StructType()
                                    .add("path", StringType.STRING)
                                    .add("deletionTimestamp", LongType.LONG)
                                    .add("dataChange", BooleanType.BOOLEAN))
                    .add(
                            "txn",
                            new StructType()
                                    .add("appId", StringType.STRING)
                                    .add("version", LongType.LONG))
                    .add(
                            "commitInfo",
                            new StructType()
                                    .add("timestamp", LongType.LONG)
                                    .add("inCommitTimestamp", LongType.LONG)
                                    .add("operation", StringType.STRING)
                                    .add(
                                            "operationParameters",
                                            new MapType(
                                                    StringType.STRING, StringType.STRING, true)))
                    .add("cdc", new StructType().add("path", StringType.STRING))
                    .add("metaData", new StructType().add("id", StringType.STRING));

    private static final int ADD = 0;
    private static final int REMOVE = 1;
    private static final int TXN = 2;
    private static final int COMMIT_INFO = 3;
    private static final int CDC = 4;
    private static final int METADATA = 5;

    final List<AddedFile> added = new ArrayList<>();

    /** The removed files' absolute paths, and when each was removed ({@link #removedAt}). */
    final List<String> removed = new ArrayList<>();

    final List<Long> removedAt = new ArrayList<>();

    /** The absolute paths of its change data files ({@code cdc} actions), in the log's order. */
    final List<String> changeFiles = new ArrayList<>();

    Instant timestamp;
    String operation;

    /** The commit info's {@code operationParameters}, empty if it has none. */
    Map<String, String> parameters = Map.of();

    String appId;
    long batchId = -1;

    /** Whether it has a {@code metaData} action: it may change the schema or the properties. */
    boolean metadata;

    private LogEntry() {}

    /** The log entry file of {@code version} of the table at {@code tablePath}. */
    static Path file(String tablePath, long version) {
        return new Path(tablePath + "/_delta_log/" + String.format("%020d.json", version));
    }

    /**
     * Reads the entry of {@code version}.
     *
     * @throws IllegalArgumentException if the version's entry is not there (not committed yet, or
     *     cleaned up after a log checkpoint)
     */
    static LogEntry read(Engine engine, String tablePath, long version) {
        Path file = file(tablePath, version);
        LogEntry entry = new LogEntry();
        long modified;
        try {
            modified = file.getFileSystem().getFileStatus(file).getModificationTime();
        } catch (FileNotFoundException e) {
            throw new IllegalArgumentException(
                    "Delta table "
                            + tablePath
                            + " has no log entry for version "
                            + version
                            + " ("
                            + file
                            + "): the version is not committed yet, or its entry was cleaned up",
                    e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        long index = 0;
        try (CloseableIterator<ColumnarBatch> batches =
                engine.getJsonHandler()
                        .readJsonFiles(
                                FlinkFileIO.iterator(
                                        List.of(FileStatus.of(file.toString(), 0, modified))
                                                .iterator()),
                                COMMIT_SCHEMA,
                                Optional.empty())) {
            while (batches.hasNext()) {
                try (CloseableIterator<Row> rows = batches.next().getRows()) {
                    while (rows.hasNext()) {
                        Row row = rows.next();
                        if (!row.isNullAt(ADD)) {
                            Row add = row.getStruct(ADD);
                            entry.added.add(
                                    new AddedFile(
                                            version,
                                            index++,
                                            DataFile.of(
                                                    absolute(tablePath, add.getString(0)),
                                                    add.getLong(1),
                                                    add.getLong(2),
                                                    add.isNullAt(4)
                                                            ? -1
                                                            : numRecords(add.getString(4)))));
                        } else if (!row.isNullAt(REMOVE)) {
                            Row remove = row.getStruct(REMOVE);
                            if (remove.isNullAt(2) || remove.getBoolean(2)) {
                                entry.removed.add(absolute(tablePath, remove.getString(0)));
                                entry.removedAt.add(
                                        remove.isNullAt(1) ? modified : remove.getLong(1));
                            }
                        } else if (!row.isNullAt(TXN)) {
                            entry.appId = row.getStruct(TXN).getString(0);
                            entry.batchId = row.getStruct(TXN).getLong(1);
                        } else if (!row.isNullAt(METADATA)) {
                            entry.metadata = true;
                        } else if (!row.isNullAt(CDC)) {
                            entry.changeFiles.add(
                                    absolute(tablePath, row.getStruct(CDC).getString(0)));
                        } else if (!row.isNullAt(COMMIT_INFO)) {
                            Row info = row.getStruct(COMMIT_INFO);
                            entry.operation = info.isNullAt(2) ? null : info.getString(2);
                            entry.parameters =
                                    KernelInternals.stringMap(info, "operationParameters");
                            // The commit's time as time travel reads it (Delta's history): its
                            // in-commit timestamp if the table has them, else the log entry's
                            // modification time (commitInfo.timestamp is the writer's clock
                            // before the commit, and --timestamp of it would find the version
                            // before).
                            long ts = !info.isNullAt(1) ? info.getLong(1) : modified;
                            entry.timestamp = Instant.ofEpochMilli(ts);
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        if (entry.timestamp == null) {
            entry.timestamp = Instant.ofEpochMilli(modified);
        }
        return entry;
    }

    /** What the commit records of its event time's completeness ({@link Completeness}). */
    Completeness completeness() {
        return Completeness.fromParameters(parameters);
    }

    private static long numRecords(String stats) {
        try {
            JsonNode n = JSON.readTree(stats).get("numRecords");
            return n == null ? -1 : n.asLong();
        } catch (IOException e) {
            return -1;
        }
    }

    private static String absolute(String tablePath, String logPath) {
        URI uri = URI.create(logPath);
        return uri.isAbsolute() ? logPath : new Path(new Path(tablePath), uri.getPath()).toString();
    }
}
