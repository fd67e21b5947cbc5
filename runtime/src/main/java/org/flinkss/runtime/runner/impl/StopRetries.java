package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;

import java.time.Duration;

/**
 * How often {@link JobStopper} asks again for a stop with savepoint that Flink refused while the
 * job still runs, and how long it waits before each new attempt. Right after the sources caught up,
 * a stop may be refused ("Not all required tasks are currently running"): the first attempts follow
 * quickly, later ones slowly, so that a job that takes long to settle is not flooded.
 *
 * @param attempts how many stops are tried in all
 * @param quickAttempts how many of them follow after {@code quickPause}; the others after {@code
 *     slowPause}
 */
@Internal
public record StopRetries(
        int attempts, int quickAttempts, Duration quickPause, Duration slowPause) {

    /** 50 attempts: 29 pauses of 0.1 s, then 1 s each, about 23 s of waiting in all. */
    public static final StopRetries DEFAULT =
            new StopRetries(50, 30, Duration.ofMillis(100), Duration.ofSeconds(1));

    public StopRetries {
        if (attempts < 1 || quickAttempts < 0) {
            throw new IllegalArgumentException(
                    "a stop needs at least one attempt, got " + attempts + " / " + quickAttempts);
        }
    }

    /** The pause after failed attempt {@code attempt} (1 for the first) before the next. */
    public Duration pauseAfter(int attempt) {
        return attempt < quickAttempts ? quickPause : slowPause;
    }

    /** Whether another attempt follows failed attempt {@code attempt}. */
    public boolean retriesAfter(int attempt) {
        return attempt < attempts;
    }

    /** The total pause if every attempt fails. */
    public Duration totalPause() {
        Duration total = Duration.ZERO;
        for (int attempt = 1; retriesAfter(attempt); attempt++) {
            total = total.plus(pauseAfter(attempt));
        }
        return total;
    }
}
