package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.util.SerializedThrowable;

import java.util.Optional;

/**
 * Tells failures apart by their type, as far down a cause chain as it goes. An exception that
 * crossed from the JobManager (through the REST API, or in a job's result) may arrive as Flink's
 * {@link SerializedThrowable}, which keeps the original type's name and, when that class can be
 * loaded, the original itself: both are looked at.
 */
@Internal
public final class Throwables {

    private static final int MAX_DEPTH = 64;

    private Throwables() {}

    /**
     * The first exception of {@code type} (or a subtype) in {@code failure}'s cause chain: the
     * original of a {@link SerializedThrowable} when its class loads, else the serialized one,
     * which keeps the original's message.
     */
    public static Optional<Throwable> find(Throwable failure, Class<? extends Throwable> type) {
        int seen = 0;
        for (Throwable t = failure; t != null && seen < MAX_DEPTH; t = t.getCause(), seen++) {
            if (type.isInstance(t)) {
                return Optional.of(t);
            }
            if (t instanceof SerializedThrowable) {
                SerializedThrowable serialized = (SerializedThrowable) t;
                Throwable original = serialized.deserializeError(type.getClassLoader());
                if (original != serialized) {
                    Optional<Throwable> found = find(original, type);
                    if (found.isPresent()) {
                        return found;
                    }
                } else if (type.getName().equals(serialized.getOriginalErrorClassName())) {
                    return Optional.of(serialized);
                }
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return Optional.empty();
    }

    /** Whether {@code failure} or one of its causes is of {@code type} (or a subtype). */
    public static boolean isCausedBy(Throwable failure, Class<? extends Throwable> type) {
        return isCausedBy(failure, type, 0);
    }

    private static boolean isCausedBy(
            Throwable failure, Class<? extends Throwable> type, int depth) {
        int seen = depth;
        for (Throwable t = failure; t != null && seen < MAX_DEPTH; t = t.getCause(), seen++) {
            if (type.isInstance(t)) {
                return true;
            }
            if (t instanceof SerializedThrowable) {
                SerializedThrowable serialized = (SerializedThrowable) t;
                if (type.getName().equals(serialized.getOriginalErrorClassName())) {
                    return true;
                }
                Throwable original = serialized.deserializeError(type.getClassLoader());
                if (original != serialized && isCausedBy(original, type, seen + 1)) {
                    return true;
                }
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }
}
