package org.flinkss.runtime.sql;

import java.nio.file.Path;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns what Flink's parser, validator and planner throw into one line that names the file, the
 * statement, its line and what to do: {@code win5.sql:12: statement 3 (INSERT INTO ...): ...}.
 */
final class SqlErrors {

    private static final Pattern LINE = Pattern.compile("line (\\d+)");
    private static final Pattern UPDATES =
            Pattern.compile(
                    "doesn't support consuming update(?: and delete)? changes which is produced by"
                            + " node (\\w+)\\(");

    // The script's local file as SqlScript read it (errors name it), not a storage location.
    private final Path file;

    SqlErrors(Path file) {
        this.file = file;
    }

    /** Runs one statement's step; a failure names that statement (or the table it defines). */
    <T> T run(SqlStatement statement, Map<String, SqlStatement> definitions, Supplier<T> step) {
        try {
            return step.get();
        } catch (SqlFileException e) {
            throw e;
        } catch (RuntimeException e) {
            SqlTableException table = tableProblem(e);
            if (table != null && definitions.containsKey(table.table())) {
                throw at(definitions.get(table.table()), table.getMessage());
            }
            throw at(statement, message(e));
        }
    }

    /**
     * Runs a step of all the INSERTs (the plan, its translation); a failure names the INSERT into
     * the table it is about, or the definition of the table at fault.
     */
    <T> T runAll(
            Map<String, SqlStatement> writers,
            Map<String, SqlStatement> definitions,
            Supplier<T> step) {
        try {
            return step.get();
        } catch (SqlFileException e) {
            throw e;
        } catch (RuntimeException e) {
            SqlTableException table = tableProblem(e);
            if (table != null) {
                SqlStatement at = writers.get(table.table());
                if (at == null) {
                    at =
                            definitions.getOrDefault(
                                    table.table(), writers.values().iterator().next());
                }
                throw at(at, table.getMessage());
            }
            String text = fullText(e);
            for (Map.Entry<String, SqlStatement> writer : writers.entrySet()) {
                if (text.contains("." + writer.getKey() + "'")
                        || text.contains("`" + writer.getKey() + "`")) {
                    throw at(writer.getValue(), message(e, writer.getKey()));
                }
            }
            throw at(writers.values().iterator().next(), message(e));
        }
    }

    /** A refusal of {@code statement}, in one line. */
    SqlFileException at(SqlStatement statement, String message) {
        Matcher line = LINE.matcher(message);
        int fileLine =
                line.find()
                        ? statement.fileLine(Integer.parseInt(line.group(1)))
                        : statement.line();
        // Flink counts lines from the statement's start; the file's lines are what a reader sees.
        StringBuilder relocated = new StringBuilder();
        Matcher m = LINE.matcher(message);
        while (m.find()) {
            m.appendReplacement(
                    relocated, "line " + statement.fileLine(Integer.parseInt(m.group(1))));
        }
        m.appendTail(relocated);
        return new SqlFileException(
                file
                        + ":"
                        + fileLine
                        + ": statement "
                        + statement.number()
                        + " ("
                        + statement.head()
                        + "): "
                        + relocated);
    }

    private static SqlTableException tableProblem(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SqlTableException table) {
                return table;
            }
        }
        return null;
    }

    private static String message(Throwable e) {
        return message(e, null);
    }

    /** The first line of the most telling message in the chain. */
    private static String message(Throwable e, String table) {
        String text = fullText(e);
        Matcher updates = UPDATES.matcher(text);
        if (updates.find() && table != null) {
            return "its result is updated as rows arrive ("
                    + updates.group(1)
                    + "), and table '"
                    + table
                    + "' is only appended to: give the table 'sink.mode' = 'complete' (Spark's"
                    + " complete mode: the table replaced by the whole result at every batch), or"
                    + " aggregate over a window (TUMBLE, HOP, SESSION) on a column with a"
                    + " WATERMARK";
        }
        Throwable best = e;
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = t.getMessage();
            if (m != null && LINE.matcher(m).find()) {
                best = t;
                break;
            }
        }
        String m = best.getMessage() == null ? best.toString() : best.getMessage();
        String first = m.strip().split("\n", 2)[0].strip();
        first = first.replaceFirst("^SQL (parse|validation) failed\\. ", "");
        if (!first.contains(": ")
                && best.getCause() != null
                && best.getCause().getMessage() != null) {
            String cause = best.getCause().getMessage().strip().split("\n", 2)[0];
            if (!first.contains(cause)) {
                first = first + ": " + cause;
            }
        }
        return first;
    }

    private static String fullText(Throwable e) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append('\n');
        }
        return all.toString();
    }
}
