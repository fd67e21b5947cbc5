package org.flinkss.runtime.source;

import javax.annotation.Nullable;

import java.io.Closeable;
import java.io.IOException;

/** Reads the records of one split, in order, from the split's position on. */
public interface SplitRecordReader<T> extends Closeable {

    /** The next record, or {@code null} when the split is done. */
    @Nullable
    T next() throws IOException;

    /** The split's position after the last record returned: where a restored reader resumes. */
    long position();
}
