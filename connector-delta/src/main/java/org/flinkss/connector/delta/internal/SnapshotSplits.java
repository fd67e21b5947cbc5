package org.flinkss.connector.delta.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.connector.file.src.enumerate.FileEnumerator;
import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.table.delta.DataFile;

import java.util.ArrayList;
import java.util.List;

/**
 * The splits of a {@code FileSource} over one Delta version: one per data file the log lists, with
 * the size and time the log records. The folder is never listed: it holds files of other versions
 * and files no version references, which a reader of this version must not see.
 */
@Internal
public final class SnapshotSplits implements FileEnumerator.Provider {

    private static final long serialVersionUID = 1L;

    private final String[] paths;
    private final long[] sizes;
    private final long[] times;

    public SnapshotSplits(List<DataFile> files) {
        int n = files.size();
        paths = new String[n];
        sizes = new long[n];
        times = new long[n];
        for (int i = 0; i < n; i++) {
            paths[i] = files.get(i).path();
            sizes[i] = files.get(i).size();
            times[i] = files.get(i).modificationTime();
        }
    }

    @Override
    public FileEnumerator create() {
        return (folders, minDesiredSplits) -> {
            List<FileSourceSplit> splits = new ArrayList<>(paths.length);
            for (int i = 0; i < paths.length; i++) {
                splits.add(
                        new FileSourceSplit(
                                String.valueOf(i),
                                new Path(paths[i]),
                                0,
                                sizes[i],
                                times[i],
                                sizes[i]));
            }
            return splits;
        };
    }
}
