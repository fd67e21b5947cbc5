package org.flinkss.runtime.expect;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A data-quality rule on the rows a query writes to a table (Lakeflow's expectations): a name, a
 * Flink SQL boolean expression over the table's columns, and what a row that breaks it does ({@link
 * ExpectationAction}). A row passes when the expression is TRUE; FALSE and NULL both count as a
 * violation, as in Lakeflow (so {@code amount >= 0} fails a row whose amount is null).
 *
 * <p>Written {@code NAME:EXPR:ACTION} ({@link #parse}); {@code TABLE.NAME:EXPR:ACTION} names the
 * table, otherwise the rule applies to the query's main table, the first it writes. The expression
 * may hold colons ({@code CAST(x AS TIMESTAMP) > TIMESTAMP '2025-03-01 00:00:00'}): the name ends
 * at the first colon, the action starts after the last.
 */
public final class Expectation implements Serializable {

    private static final long serialVersionUID = 1L;

    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    @Nullable private final String table;
    private final String name;
    private final String expression;
    private final ExpectationAction action;

    /**
     * @param table the table the rule applies to, or null for the query's main table
     */
    public Expectation(
            @Nullable String table, String name, String expression, ExpectationAction action) {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "expectation name '"
                            + name
                            + "' is not a name: letters, digits and _, not starting with a digit");
        }
        if (expression.isBlank()) {
            throw new IllegalArgumentException("expectation '" + name + "' has no expression");
        }
        this.table = table == null || table.isBlank() ? null : table;
        this.name = name;
        this.expression = expression.trim();
        this.action = Objects.requireNonNull(action);
    }

    /**
     * {@code NAME:EXPR:ACTION} or {@code TABLE.NAME:EXPR:ACTION}.
     *
     * @throws IllegalArgumentException saying what is missing or wrong, with the rule as given
     */
    public static Expectation parse(String spec) {
        int first = spec.indexOf(':');
        int last = spec.lastIndexOf(':');
        if (first < 0 || last == first) {
            throw new IllegalArgumentException(
                    "expectation '"
                            + spec
                            + "' is not NAME:EXPR:ACTION (e.g. positive_amount:amount >= 0:drop)");
        }
        String qualified = spec.substring(0, first).trim();
        String expression = spec.substring(first + 1, last);
        ExpectationAction action;
        try {
            action = ExpectationAction.of(spec.substring(last + 1));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("expectation '" + spec + "': " + e.getMessage(), e);
        }
        int dot = qualified.lastIndexOf('.');
        String table = dot < 0 ? null : qualified.substring(0, dot);
        return new Expectation(table, qualified.substring(dot + 1), expression, action);
    }

    /** The table named by the rule, or null for the query's main table. */
    @Nullable
    public String table() {
        return table;
    }

    public String name() {
        return name;
    }

    public String expression() {
        return expression;
    }

    public ExpectationAction action() {
        return action;
    }

    /** Whether the rule applies to {@code tableName}, which is the query's main table or not. */
    public boolean appliesTo(String tableName, boolean mainTable) {
        return table == null ? mainTable : table.equals(tableName);
    }

    /** As it is written: {@code [TABLE.]NAME:EXPR:ACTION}. */
    @Override
    public String toString() {
        return (table == null ? "" : table + ".")
                + name
                + ":"
                + expression
                + ":"
                + action.spelled();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Expectation e && toString().equals(e.toString());
    }

    @Override
    public int hashCode() {
        return toString().hashCode();
    }
}
