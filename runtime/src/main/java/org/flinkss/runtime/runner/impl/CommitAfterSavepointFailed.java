package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;

/**
 * A job stopped with a savepoint, but committing its last batch failed (Flink's {@code
 * StopWithSavepointStoppingException}): the savepoint holds the batch's committables, so a run from
 * it commits them again (sinks are idempotent or transactional), then finds nothing new and stops.
 */
@Internal
public final class CommitAfterSavepointFailed extends RuntimeException {

    private static final long serialVersionUID = 1L;

    CommitAfterSavepointFailed(String message, Throwable cause) {
        super(message, cause);
    }
}
