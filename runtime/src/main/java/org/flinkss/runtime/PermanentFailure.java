package org.flinkss.runtime;

import org.apache.flink.runtime.throwable.ThrowableAnnotation;
import org.apache.flink.runtime.throwable.ThrowableType;

/**
 * A failure that no restart can fix: a file the run may not read, a topic that does not exist, a
 * server that did not answer within its timeout, a job whose run was fenced. Thrown inside a job,
 * it fails the job at once: Flink skips its restart strategy for exceptions of this class (it
 * carries Flink's {@link ThrowableType#NonRecoverableError} annotation, found anywhere in a cause
 * chain). Its message is the one line the runner reports: what happened, to which file, topic or
 * server, and what to do.
 */
@ThrowableAnnotation(ThrowableType.NonRecoverableError)
public final class PermanentFailure extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public PermanentFailure(String message) {
        super(message);
    }

    public PermanentFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
