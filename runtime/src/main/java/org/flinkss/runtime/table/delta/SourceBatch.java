package org.flinkss.runtime.table.delta;

import java.util.List;

/**
 * The files a stream reads in one micro-batch: those added from {@code start} (inclusive) to {@code
 * end} (exclusive). A batch with no files may still move {@code end} past versions that add none (a
 * commit of an empty batch); with no new version, {@code end == start}.
 */
public record SourceBatch(DeltaOffset start, DeltaOffset end, List<AddedFile> files) {

    public SourceBatch {
        files = List.copyOf(files);
    }

    public boolean isEmpty() {
        return files.isEmpty();
    }

    public long bytes() {
        return files.stream().mapToLong(f -> f.file().size()).sum();
    }

    public long rows() {
        return files.stream().mapToLong(f -> f.file().numRecords()).sum();
    }
}
