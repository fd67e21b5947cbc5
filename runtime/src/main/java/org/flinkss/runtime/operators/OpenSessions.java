package org.flinkss.runtime.operators;

import org.apache.flink.api.common.state.MapState;
import org.apache.flink.streaming.api.operators.KeyContext;

import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The open sessions of the keys a {@link WindowAggregate} has touched, on the heap, by start (epoch
 * microseconds), in front of its {@code windows} map state: a row or a timer works on a {@link
 * TreeMap} and RocksDB is written only at a snapshot ({@link #write}), the changes since the last
 * one, or when more than {@code limit} sessions are held ({@link HeapBudget}). A session opened and
 * closed between two snapshots, most of an availableNow batch's, never reaches RocksDB. What a
 * checkpoint holds is what it held before: the key's sessions by start.
 *
 * <p>A key's sessions are read from RocksDB once, when the key is first touched after a restore or
 * after the cache was emptied: all of them, as Spark's state store loads a key's sessions.
 *
 * @param <K> the key
 * @param <A> the accumulator
 */
final class OpenSessions<K, A extends WindowAggregate.Ended> {

    private final MapState<Long, A> windows;
    private final MapState<Long, ?> olderIndex;
    private int limit;

    private final Map<K, Sessions<A>> byKey = new HashMap<>();
    private final Map<K, Sessions<A>> changed = new HashMap<>();
    private int held;

    /** One key's sessions, and what changed in them since they were last written. */
    private static final class Sessions<A> {
        final TreeMap<Long, A> open = new TreeMap<>();

        /** Starts changed since the last write, each with whether RocksDB holds it. */
        final Map<Long, Boolean> changes = new HashMap<>();
    }

    /**
     * @param windows the keyed {@code windows} state
     * @param olderIndex the keyed {@code session-index} of older versions, cleared for a key as it
     *     is read
     * @param limit how many sessions may be held before they are written and dropped
     */
    OpenSessions(MapState<Long, A> windows, MapState<Long, ?> olderIndex, int limit) {
        this.windows = windows;
        this.olderIndex = olderIndex;
        this.limit = limit;
    }

    /** The current key's sessions by start, read from its state the first time. Do not modify. */
    NavigableMap<Long, A> of(K key) throws Exception {
        return sessions(key).open;
    }

    private Sessions<A> sessions(K key) throws Exception {
        Sessions<A> s = byKey.get(key);
        if (s == null) {
            s = new Sessions<>();
            for (Map.Entry<Long, A> e : windows.entries()) {
                s.open.put(e.getKey(), e.getValue());
            }
            held += s.open.size();
            // A checkpoint of a version before the heap cache has an index of the key's sessions
            // by time bucket; nothing reads it any more.
            olderIndex.clear();
            byKey.put(key, s);
        }
        return s;
    }

    /** Adds or replaces the current key's session starting at {@code start}. */
    void put(K key, long start, A session) throws Exception {
        Sessions<A> s = sessions(key);
        changing(key, s, start);
        if (s.open.put(start, session) == null) {
            held++;
        }
    }

    /** Removes the current key's session starting at {@code start}. */
    void remove(K key, long start) throws Exception {
        Sessions<A> s = sessions(key);
        changing(key, s, start);
        if (s.open.remove(start) != null) {
            held--;
        }
    }

    private void changing(K key, Sessions<A> s, long start) {
        if (!s.changes.containsKey(start)) {
            // Unchanged since the last write: RocksDB holds it exactly when it is open.
            s.changes.put(start, s.open.containsKey(start));
            changed.put(key, s);
        }
    }

    /** Sets the heap budget, for a test that fills it. */
    void limit(int sessions) {
        limit = sessions;
    }

    /** Whether more sessions are held than the heap budget allows. */
    boolean full() {
        return held > limit;
    }

    /** Writes every change since the last write to the keyed state, key by key. */
    void write(KeyContext keys) throws Exception {
        if (changed.isEmpty()) {
            return;
        }
        Object current = keys.getCurrentKey();
        for (Map.Entry<K, Sessions<A>> e : changed.entrySet()) {
            keys.setCurrentKey(e.getKey());
            Sessions<A> s = e.getValue();
            for (Map.Entry<Long, Boolean> change : s.changes.entrySet()) {
                A session = s.open.get(change.getKey());
                if (session != null) {
                    windows.put(change.getKey(), session);
                } else if (change.getValue()) {
                    windows.remove(change.getKey());
                }
            }
            s.changes.clear();
        }
        changed.clear();
        if (current != null) {
            keys.setCurrentKey(current);
        }
    }

    /** Writes the changes, then forgets every key's sessions (they are read again when needed). */
    void writeAndDrop(KeyContext keys) throws Exception {
        write(keys);
        byKey.clear();
        held = 0;
    }

    /** How many sessions are held on the heap. */
    int held() {
        return held;
    }
}
