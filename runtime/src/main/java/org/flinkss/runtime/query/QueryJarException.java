package org.flinkss.runtime.query;

/**
 * A user's jar or class that cannot be run as a query ({@code run --jar JAR --class CLASS}): the
 * jar is missing or not a jar, the class is not in it, is not a {@link Query}, or cannot be
 * created. The message is one line that names the jar and the class and says what to do; the
 * command line exits 2 on it, having written nothing.
 */
public final class QueryJarException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public QueryJarException(String message) {
        super(message);
    }

    public QueryJarException(String message, Throwable cause) {
        super(message, cause);
    }
}
