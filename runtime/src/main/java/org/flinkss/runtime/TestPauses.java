package org.flinkss.runtime;

import org.apache.flink.annotation.Internal;

/**
 * Named points where a test holds a whole process, to send it a signal (Ctrl-C, kill -9) exactly
 * there rather than by timing luck. A test starts the process with {@code
 * -Dflinkss.test.pause-at=<point>}; at that point the process prints {@code paused at <point>} on
 * stderr and sleeps until it is ended. Without the property (every user's run) a point costs one
 * property read.
 */
@Internal
public final class TestPauses {

    /** The system property naming the point to pause at. */
    public static final String PROPERTY = "flinkss.test.pause-at";

    /** What the process prints when it pauses, followed by the point's name. */
    public static final String PAUSED = "paused at ";

    private TestPauses() {}

    /** Pauses here, for good, if the process was started to pause at {@code point}. */
    public static void at(String point) {
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
