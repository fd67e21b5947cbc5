package org.flinkss.runtime.checkpoint;

import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.storage.Storage;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A folder of a query's checkpoint whose children are keyed entries ({@link EntryNames}): what
 * every {@link CheckpointLog} is, and what a log of logs is (the progress fragments keep a folder
 * per run, and in it a folder per checkpoint). Lists the keys in order and removes entries; what an
 * entry holds is the {@link CheckpointLog}'s.
 *
 * @param <K> the key of an entry
 */
public class LogFolder<K extends Comparable<K>> {

    private final Path folder;
    final EntryNames<K> names;

    /**
     * @param folder the folder, local or on an object store
     */
    public LogFolder(Path folder, EntryNames<K> names) {
        this.folder = Objects.requireNonNull(folder);
        this.names = Objects.requireNonNull(names);
    }

    /** The folder. */
    public Path location() {
        return folder;
    }

    /** The child that holds the entry of {@code key} (a file, or a folder), whether it exists. */
    public Path entry(K key) {
        return new Path(folder, names.name(key));
    }

    /** The keys of every entry, in order; none if the folder does not exist. */
    public List<K> keys() throws IOException {
        List<K> keys = new ArrayList<>();
        for (FileStatus child : Storage.list(folder)) {
            names.key(child.getPath().getName()).ifPresent(keys::add);
        }
        keys.sort(null);
        return keys;
    }

    /**
     * Removes the entries before {@code key}: none will be read again. Best effort: an entry that
     * cannot be removed now costs a few bytes until a later purge.
     */
    public void purgeBefore(K key) {
        try {
            for (K k : keys()) {
                if (k.compareTo(key) < 0) {
                    remove(k);
                }
            }
        } catch (IOException | RuntimeException e) {
            // A leftover is harmless: it is never read, and the next purge removes it.
        }
    }

    /** Removes the entry of {@code key}, whatever is below it; nothing if there is none. */
    public void remove(K key) {
        Folders.deleteQuietly(entry(key));
    }

    /** Removes the whole folder. */
    public void purge() {
        Folders.deleteQuietly(folder);
    }

    @Override
    public String toString() {
        return folder.toString();
    }
}
