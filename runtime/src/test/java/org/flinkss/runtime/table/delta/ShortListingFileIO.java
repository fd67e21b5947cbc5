package org.flinkss.runtime.table.delta;

import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.InputFile;
import io.delta.kernel.defaults.engine.fileio.OutputFile;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The project's {@link FlinkFileIO} on the local disk, with listings of a table's log that miss
 * commits that exist, as an object store's listing may (see {@code FlinkFileIO.incomplete}): the
 * {@code n}-th listing after {@link #hide} leaves out the files of the {@code n}-th set of versions
 * (the last set for every listing after). Nothing is hidden until {@link #hide}.
 */
final class ShortListingFileIO implements FileIO {

    private final FileIO delegate = new FlinkFileIO(scheme -> PutIfAbsent.localDisk(), Map.of());

    private volatile List<Set<Long>> hiddenByListing = List.of(Set.of());
    private volatile int listings;
    private volatile int hiddenFiles;

    /** An engine on this file access. */
    Engine engine() {
        return DefaultEngine.create(this);
    }

    /**
     * From now on, listing {@code n} leaves out the files of the versions {@code hidden.get(n)}.
     */
    void hide(List<Set<Long>> hidden) {
        hiddenByListing = List.copyOf(hidden);
        listings = 0;
    }

    /** How many log files that exist the listings left out so far. */
    int hiddenFiles() {
        return hiddenFiles;
    }

    @Override
    public CloseableIterator<FileStatus> listFrom(String filePath) throws IOException {
        Set<Long> hidden = hiddenByListing.get(Math.min(listings, hiddenByListing.size() - 1));
        listings++;
        List<FileStatus> kept = new ArrayList<>();
        try (CloseableIterator<FileStatus> listed = delegate.listFrom(filePath)) {
            while (listed.hasNext()) {
                FileStatus f = listed.next();
                if (!hidden.contains(logVersion(f.getPath()))) {
                    kept.add(f);
                } else {
                    hiddenFiles++;
                }
            }
        }
        return FlinkFileIO.iterator(kept.iterator());
    }

    /**
     * The version a log file belongs to ({@code 00000000000000000003.json}, {@code .crc}, {@code
     * .checkpoint.parquet}), else -1: a listing that misses a version misses all of its files.
     */
    private static long logVersion(String path) {
        String name = path.substring(path.lastIndexOf('/') + 1);
        if (name.length() > 21 && name.charAt(20) == '.') {
            try {
                return Long.parseLong(name.substring(0, 20));
            } catch (NumberFormatException e) {
                return -1;
            }
        }
        return -1;
    }

    @Override
    public FileStatus getFileStatus(String path) throws IOException {
        return delegate.getFileStatus(path);
    }

    @Override
    public String resolvePath(String path) throws IOException {
        return delegate.resolvePath(path);
    }

    @Override
    public boolean mkdirs(String path) throws IOException {
        return delegate.mkdirs(path);
    }

    @Override
    public InputFile newInputFile(String path, long fileSize) {
        return delegate.newInputFile(path, fileSize);
    }

    @Override
    public OutputFile newOutputFile(String path) {
        return delegate.newOutputFile(path);
    }

    @Override
    public boolean delete(String path) throws IOException {
        return delegate.delete(path);
    }

    @Override
    public Optional<String> getConf(String confKey) {
        return delegate.getConf(confKey);
    }
}
