package org.flinkss.runtime.table.delta;

/**
 * A position in a table's log for a stream reading it, as Spark's {@code DeltaSourceOffset}
 * (reservoirVersion, index): the next file to read is the {@code index}-th file added by {@code
 * version}. {@link #START} is the table's first version.
 */
public record DeltaOffset(long version, long index) implements Comparable<DeltaOffset> {

    public static final DeltaOffset START = new DeltaOffset(0, 0);

    public DeltaOffset {
        if (version < 0 || index < 0) {
            throw new IllegalArgumentException("bad offset " + version + "/" + index);
        }
    }

    @Override
    public int compareTo(DeltaOffset o) {
        return version != o.version
                ? Long.compare(version, o.version)
                : Long.compare(index, o.index);
    }
}
