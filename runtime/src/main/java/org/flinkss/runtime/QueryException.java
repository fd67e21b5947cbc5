package org.flinkss.runtime;

/** A run refused or failed for a reason the user can act on; the message says what to do. */
public final class QueryException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public QueryException(String message) {
        super(message);
    }

    public QueryException(String message, Throwable cause) {
        super(message, cause);
    }
}
