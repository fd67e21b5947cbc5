package org.flinkss.runtime.source.impl;

import java.util.HashSet;
import java.util.Set;

/**
 * Which readers of a source with a watermark have emitted the watermark the run starts from
 * (Spark's initial one, the epoch, or the one a restored query carries), since they last
 * registered, and whether the hold that waits for them is over. A run's first batch waits for all
 * of them, and so does a batch restored in the middle of its reading (a failover to a checkpoint
 * taken inside it): Flink's operators take the minimum watermark of their inputs and restore none
 * from a checkpoint, so until every reader's starting watermark has reached them, a batch's rows
 * meet none at all (issue 31: a fresh query's sliding windows that end before 1970 were emitted;
 * after a failover inside a batch, its late rows reopened windows that had fired).
 *
 * <p>The hold is over once a checkpoint taken after every reader emitted it has completed ({@link
 * #end}); a reader that registers again before that (its task restarted) must emit it again.
 * Emitted is not enough: a reader's watermark can still sit in its unflushed network buffer while
 * another reader's rows reach a window (the buffer timeout is 100 ms). The checkpoint's barriers
 * follow each reader's watermark down every channel and are aligned, so once it completes every
 * operator has the watermark from all of its inputs.
 *
 * <p>After a failover to a checkpoint taken inside a batch, the restored readers get their unread
 * splits back from their own state before they register, and would read them at once: they hold
 * them instead ({@link MicroBatchReader}), and the enumerator gives out none of the rest, until the
 * hold is over. The batch's rows late for windows that fired before the failover then meet the
 * restored watermark everywhere, and are dropped (or routed to {@code <table>_late}) as in an
 * uninterrupted run, instead of reopening those windows.
 */
final class ReaderStart {

    private final Set<Integer> emitted = new HashSet<>();
    private boolean done;
    private boolean over;

    /**
     * @param needed false when there is nothing to wait for: no watermark, or a batch whose
     *     watermark is fixed
     */
    ReaderStart(boolean needed) {
        this.done = !needed;
        this.over = !needed;
    }

    /** A reader (re)registered: it is sent the starting watermark, and has not emitted it yet. */
    void registered(int subtask) {
        emitted.remove(subtask);
        if (!over) {
            done = false;
        }
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

    /** A checkpoint taken once every reader had emitted it completed: the hold is over. */
    void end() {
        over = true;
    }

    /** True once the hold is over, or if there was none. */
    boolean over() {
        return over;
    }
}
