package org.flinkss.runtime;

import org.apache.flink.annotation.Internal;

/**
 * Named points where a test holds a whole process, to send it a signal (Ctrl-C, kill -9) exactly
 * there rather than by timing luck. A test starts the process with {@code
 * -Dflinkss.test.pause-at=<point>}; at that point the process prints {@code paused at <point>} on
 * stderr and sleeps until it is ended. With {@code -Dflinkss.test.halt-at=<point>} it halts there
 * at once, as {@code kill -9} would end it (no shutdown hook, exit code 137). Without the
 * properties (every user's run) a point costs two property reads.
 */
@Internal
public final class TestPauses {

    /** The system property naming the point to pause at. */
    public static final String PROPERTY = "flinkss.test.pause-at";

    /** The system property naming the point to halt at. */
    public static final String HALT_PROPERTY = "flinkss.test.halt-at";

    /** The exit code of a halt: what a process ended by SIGKILL reports (128 + 9). */
    public static final int HALT_EXIT_CODE = 137;

    /** What the process prints when it pauses, followed by the point's name. */
    public static final String PAUSED = "paused at ";

    private TestPauses() {}

    /**
     * Halts the process here, or pauses it for good, if it was started to halt or pause at {@code
     * point}.
     */
    public static void at(String point) {
        if (point.equals(System.getProperty(HALT_PROPERTY))) {
            Runtime.getRuntime().halt(HALT_EXIT_CODE);
        }
        if (!point.equals(System.getProperty(PROPERTY))) {
            return;
        }
        System.err.println(PAUSED + point);
        System.err.flush();
        try {
            Thread.sleep(Long.MAX_VALUE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
