package org.flinkss.runtime.checkpoint;

import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.storage.Storage;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A log of records in a folder of a query's checkpoint, one entry per key, as Spark's {@code
 * HDFSMetadataLog} keeps one file per batch under its {@code OffsetSeqLog} and {@code CommitLog}:
 * {@link #add} an entry, {@link #get} one, the {@link #latest}, {@link #purgeBefore} a key. Each
 * record type brings its {@link LogCodec}; the {@link EntryNames} say how entries are named, which
 * is the on-disk format of each log and never changes for the checkpoints that exist.
 *
 * <p>Writes are atomic through {@link Storage#replace} (a local temporary file renamed into place,
 * one PUT on an object store): a reader sees an entry whole or not at all, on a local folder and on
 * {@code s3://} alike. Unlike Spark's {@code add}, an entry that exists is replaced: each log has a
 * single writer at a time (the run that owns the checkpoint, {@link RunFence}), and one that writes
 * a key again (a job restarted before its checkpoint) writes the same record.
 *
 * <p>The logs of a checkpoint (where each folder is: {@link CheckpointLayout}): {@code
 * offsets/<source>/} (the plan of each batch), {@code runs/<run>/sealed-<source>/} ({@link
 * SealedBatch}), {@code commits/<run>/} ({@link SkippedCommit}), {@code runs/} ({@link
 * RunRecords}), and {@code progress/pending/<run>/<checkpoint>/} (the operators' progress
 * fragments, a log per checkpoint in a {@link LogFolder} per run).
 *
 * @param <K> the key of an entry: a batch or checkpoint id, or a name
 * @param <T> the record type
 */
public final class CheckpointLog<K extends Comparable<K>, T> extends LogFolder<K> {

    private final LogCodec<T> codec;

    /**
     * @param folder the log's folder, local or on an object store
     */
    public CheckpointLog(Path folder, EntryNames<K> names, LogCodec<T> codec) {
        super(folder, names);
        this.codec = Objects.requireNonNull(codec);
    }

    /** The file of the entry of {@code key}, whether it exists or not. */
    public Path location(K key) {
        return new Path(location(), names.file(key));
    }

    /** Writes the entry of {@code key} (atomically), replacing one that exists. */
    public void add(K key, T record) throws IOException {
        Storage.replace(location(key), codec.encode(record));
    }

    /** The record of {@code key}; empty if there is no such entry. */
    public Optional<T> get(K key) throws IOException {
        byte[] bytes;
        try {
            bytes = Storage.readBytes(location(key));
        } catch (FileNotFoundException | NoSuchFileException e) {
            return Optional.empty();
        }
        try {
            return Optional.of(codec.decode(bytes));
        } catch (IOException e) {
            throw new IOException(
                    "cannot read " + location(key) + ": " + e.getMessage().split("\n")[0], e);
        }
    }

    /** Every record, in key order; an entry removed while they are read is left out. */
    public List<T> all() throws IOException {
        List<T> records = new ArrayList<>();
        for (K key : keys()) {
            get(key).ifPresent(records::add);
        }
        return records;
    }

    /** The record of the newest entry, if any. */
    public Optional<T> latest() throws IOException {
        List<K> keys = keys();
        return keys.isEmpty() ? Optional.empty() : get(keys.get(keys.size() - 1));
    }
}
