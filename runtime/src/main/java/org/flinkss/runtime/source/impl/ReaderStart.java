package org.flinkss.runtime.source.impl;

import java.util.HashSet;
import java.util.Set;

/**
 * Which readers of a source with a watermark have emitted the watermark the run starts from
 * (Spark's initial one, the epoch, or the one a restored query carries), since they last
 * registered. A run's first batch waits for all of them: Flink's operators take the minimum
 * watermark of their inputs, so until every reader's starting watermark has reached them, a batch's
 * first rows meet none at all (issue 31: a fresh query's sliding windows that end before 1970 were
 * emitted).
 */
final class ReaderStart {

    private final Set<Integer> emitted = new HashSet<>();
    private boolean done;

    /**
     * @param needed false when there is nothing to wait for: no watermark, or a batch in flight
     */
    ReaderStart(boolean needed) {
        this.done = !needed;
    }

    /** A reader (re)registered: it is sent the starting watermark, and has not emitted it yet. */
    void registered(int subtask) {
        emitted.remove(subtask);
    }

    /**
     * Reader {@code subtask} emitted the starting watermark; true if that makes every reader of the
     * source at its current parallelism, all registered, and the start is then done.
     */
    boolean emitted(int subtask, int parallelism, int registeredReaders) {
        if (done) {
            return false;
        }
        emitted.add(subtask);
        done = emitted.size() >= parallelism && registeredReaders >= parallelism;
        return done;
    }

    /** True once every reader has emitted the starting watermark (or there was none to emit). */
    boolean done() {
        return done;
    }
}
