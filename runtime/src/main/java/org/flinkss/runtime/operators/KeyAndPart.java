package org.flinkss.runtime.operators;

import javax.annotation.Nullable;

import java.util.Objects;

/**
 * A key and a number that together name one thing in an operator's state (a key's window by its
 * start, an event by its id), as a hash key. Equality by hand: a record's generated one is slow
 * until C2 compiles it. Mutable only for a lookup probe; a key in a map or set never changes.
 */
final class KeyAndPart<K> {
    @Nullable K key;
    long part;

    KeyAndPart(@Nullable K key, long part) {
        this.key = key;
        this.part = part;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KeyAndPart<?> other
                && other.part == part
                && Objects.equals(other.key, key);
    }

    @Override
    public int hashCode() {
        return 31 * Objects.hashCode(key) + Long.hashCode(part);
    }
}
