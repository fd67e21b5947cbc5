package org.flinkss.runtime.operators;

import org.apache.flink.api.common.state.MapState;
import org.apache.flink.streaming.api.operators.KeyContext;

import javax.annotation.Nullable;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
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

    /** One key's sessions, and the starts RocksDB holds that are no longer open. */
    private static final class Sessions<A> {
        final TreeMap<Long, Held<A>> open = new TreeMap<>();

        /** Starts RocksDB holds whose sessions were removed since the last write; null if none. */
        @Nullable Set<Long> removed;
    }

    /**
     * A session on the heap, and whether it differs from RocksDB's. A flag in the entry, not a set
     * of changed starts: that set cost a boxed entry per session, which the young collections
     * copied.
     */
    static final class Held<A> {
        A session;

        /** Whether RocksDB holds a session at this start (this one, or an older value). */
        boolean stored;

        /** Whether it changed since it was last written. */
        boolean changed;

        Held(A session, boolean stored, boolean changed) {
            this.session = session;
            this.stored = stored;
            this.changed = changed;
        }
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
    NavigableMap<Long, Held<A>> of(K key) throws Exception {
        return sessions(key).open;
    }

    private Sessions<A> sessions(K key) throws Exception {
        Sessions<A> s = byKey.get(key);
        if (s == null) {
            s = new Sessions<>();
            for (Map.Entry<Long, A> e : windows.entries()) {
                s.open.put(e.getKey(), new Held<>(e.getValue(), true, false));
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
        Held<A> h = s.open.get(start);
        if (h == null) {
            boolean stored = s.removed != null && s.removed.remove(start);
            s.open.put(start, new Held<>(session, stored, true));
            held++;
        } else {
            h.session = session;
            h.changed = true;
        }
        changed.put(key, s);
    }

    /** Removes the current key's session starting at {@code start}. */
    void remove(K key, long start) throws Exception {
        Sessions<A> s = sessions(key);
        Held<A> h = s.open.remove(start);
        if (h != null) {
            held--;
            if (h.stored) {
                if (s.removed == null) {
                    s.removed = new HashSet<>();
                }
                s.removed.add(start);
                changed.put(key, s);
            }
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
            if (s.removed != null) {
                for (long start : s.removed) {
                    windows.remove(start);
                }
                s.removed = null;
            }
            for (Map.Entry<Long, Held<A>> open : s.open.entrySet()) {
                Held<A> h = open.getValue();
                if (h.changed) {
                    windows.put(open.getKey(), h.session);
                    h.changed = false;
                    h.stored = true;
                }
            }
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
