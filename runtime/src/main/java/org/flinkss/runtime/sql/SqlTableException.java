package org.flinkss.runtime.sql;

/**
 * A table of a SQL file that its connector cannot serve as declared: a column that is not in the
 * Delta table, a missing option, an updating result for an append-only table. Thrown by the
 * connectors while Flink plans the file; {@link SqlQuery} names the statement that uses the table.
 */
public final class SqlTableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String table;

    /**
     * @param table the table's name in the SQL file
     * @param message what is wrong and what to do, in one line
     */
    public SqlTableException(String table, String message) {
        super(message);
        this.table = table;
    }

    /** The table's name in the SQL file. */
    public String table() {
        return table;
    }
}
