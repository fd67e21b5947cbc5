package org.flinkss.runtime.sql;

/**
 * A SQL file that cannot run as it is: a statement Flink cannot parse or validate, a table that
 * does not exist, a table definition that does not match its table, a result its sink cannot take.
 * The message is one line that names the file, the statement and its line, and what to do; the
 * command line exits 2 on it, having written nothing.
 */
public final class SqlFileException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public SqlFileException(String message) {
        super(message);
    }

    public SqlFileException(String message, Throwable cause) {
        super(message, cause);
    }
}
