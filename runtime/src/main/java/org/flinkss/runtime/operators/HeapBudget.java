package org.flinkss.runtime.operators;

/**
 * How many entries a stateful operator's subtask may keep on the heap between two snapshots before
 * it writes them to RocksDB ({@link DedupWithinWatermark}'s young keys): an eighth of the JVM's
 * heap, shared by the operator's subtasks (they may all run in one JVM, as in the embedded
 * cluster), at {@value #BYTES_PER_ENTRY} bytes an entry, between 16,384 and 4,194,304 entries.
 *
 * <p>With the embedded cluster's default heap (a quarter of the machine's memory, 6 GiB here) that
 * is 3.1 million entries a subtask at parallelism 2, every new key of a 1,000,000-event batch; in a
 * TaskManager of {@code flink-conf/config.yaml} (2 GiB, about 0.65 GiB of heap) about 340,000 (43
 * MB) a subtask.
 */
final class HeapBudget {

    /**
     * An entry's heap, rounded up: a young dedup key (its hash set entry, boxed key and expiry,
     * index entry) took 117 bytes for {@code Long} keys, a million of them with compressed pointers
     * (measured when the keys were a map's, whose entries are the same size as a set's).
     */
    static final int BYTES_PER_ENTRY = 128;

    private HeapBudget() {}

    /** The entries a subtask may keep, for {@code parallelism} subtasks of the operator. */
    static int entries(long maxHeapBytes, int parallelism) {
        long entries = maxHeapBytes / 8 / Math.max(1, parallelism) / BYTES_PER_ENTRY;
        return (int) Math.max(1 << 14, Math.min(1 << 22, entries));
    }

    /** {@link #entries(long, int)} in this JVM. */
    static int entries(int parallelism) {
        return entries(Runtime.getRuntime().maxMemory(), parallelism);
    }
}
