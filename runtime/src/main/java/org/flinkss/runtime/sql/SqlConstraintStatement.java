package org.flinkss.runtime.sql;

import javax.annotation.Nullable;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Delta's SQL for a {@code CHECK} constraint, as a statement of a SQL file: {@code ALTER TABLE t
 * ADD CONSTRAINT name CHECK (expr)} or {@code ALTER TABLE t DROP CONSTRAINT [IF EXISTS] name}.
 * Flink's parser has no {@code CHECK}, so these are read here, before it sees them.
 *
 * @param table the SQL table, as the file's {@code CREATE TABLE} names it
 * @param name the constraint's name, in lower case as Delta keeps it
 * @param expression the condition ({@code ADD}), as written between the parentheses; null for
 *     {@code DROP}
 * @param ifExists {@code DROP CONSTRAINT IF EXISTS}: a missing constraint is no error
 */
public record SqlConstraintStatement(
        String table, String name, @Nullable String expression, boolean ifExists) {

    private static final String IDENT = "(`(?:[^`]|``)+`|[A-Za-z_][A-Za-z0-9_]*)";
    private static final Pattern ADD =
            Pattern.compile(
                    "ALTER\\s+TABLE\\s+"
                            + IDENT
                            + "\\s+ADD\\s+CONSTRAINT\\s+"
                            + IDENT
                            + "\\s+CHECK\\s*\\((.*)\\)",
                    Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
    private static final Pattern DROP =
            Pattern.compile(
                    "ALTER\\s+TABLE\\s+"
                            + IDENT
                            + "\\s+DROP\\s+CONSTRAINT\\s+(IF\\s+EXISTS\\s+)?"
                            + IDENT,
                    Pattern.CASE_INSENSITIVE | Pattern.DOTALL);

    /** The statement, if {@code text} is one ({@code text} without its closing semicolon). */
    public static Optional<SqlConstraintStatement> parse(String text) {
        String statement = text.strip();
        Matcher add = ADD.matcher(statement);
        if (add.matches()) {
            return Optional.of(
                    new SqlConstraintStatement(
                            unquote(add.group(1)),
                            lower(unquote(add.group(2))),
                            add.group(3).strip(),
                            false));
        }
        Matcher drop = DROP.matcher(statement);
        if (drop.matches()) {
            return Optional.of(
                    new SqlConstraintStatement(
                            unquote(drop.group(1)),
                            lower(unquote(drop.group(3))),
                            null,
                            drop.group(2) != null));
        }
        return Optional.empty();
    }

    public boolean isAdd() {
        return expression != null;
    }

    private static String unquote(String ident) {
        return ident.startsWith("`")
                ? ident.substring(1, ident.length() - 1).replace("``", "`")
                : ident;
    }

    private static String lower(String name) {
        return name.toLowerCase(Locale.ROOT);
    }
}
