package org.flinkss.runtime.sql;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A SQL file cut into statements at the semicolons that end them: a semicolon inside a quoted
 * string, a quoted identifier or a comment does not end a statement. Each statement keeps the line
 * it starts on; comments and blank lines between statements are no statement.
 */
public final class SqlScript {

    private final Path file;
    private final List<SqlStatement> statements;

    private SqlScript(Path file, List<SqlStatement> statements) {
        this.file = file;
        this.statements = List.copyOf(statements);
    }

    /** Reads and cuts {@code file}; refused in one line when it cannot be read or is empty. */
    public static SqlScript read(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new SqlFileException(
                    file + ": cannot read the SQL file (" + e.getClass().getSimpleName() + ")");
        }
        SqlScript script = new SqlScript(file, split(text));
        if (script.statements.isEmpty()) {
            throw new SqlFileException(file + ": no SQL statement in the file");
        }
        return script;
    }

    public Path file() {
        return file;
    }

    public List<SqlStatement> statements() {
        return statements;
    }

    /** The statements of {@code text}, in order. */
    static List<SqlStatement> split(String text) {
        List<SqlStatement> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        int line = 1;
        int startLine = -1;
        int i = 0;
        int n = text.length();
        while (i < n) {
            char c = text.charAt(i);
            char next = i + 1 < n ? text.charAt(i + 1) : '\0';
            if (c == '-' && next == '-') {
                // A line comment: kept out of the statement, up to the end of the line.
                while (i < n && text.charAt(i) != '\n') {
                    i++;
                }
                continue;
            }
            if (c == '/' && next == '*') {
                int end = text.indexOf("*/", i + 2);
                int stop = end < 0 ? n : end + 2;
                for (int k = i; k < stop; k++) {
                    if (text.charAt(k) == '\n') {
                        line++;
                        current.append('\n');
                    }
                }
                current.append(' ');
                i = stop;
                continue;
            }
            if (c == '\'' || c == '"' || c == '`') {
                // A string or a quoted identifier, its quote doubled inside it.
                if (startLine < 0) {
                    startLine = line;
                }
                int k = i + 1;
                while (k < n) {
                    char q = text.charAt(k);
                    if (q == c && k + 1 < n && text.charAt(k + 1) == c) {
                        k += 2;
                    } else if (q == c) {
                        break;
                    } else {
                        k++;
                    }
                }
                int stop = Math.min(n, k + 1);
                String quoted = text.substring(i, stop);
                line += (int) quoted.chars().filter(ch -> ch == '\n').count();
                current.append(quoted);
                i = stop;
                continue;
            }
            if (c == ';') {
                add(out, current, startLine);
                current.setLength(0);
                startLine = -1;
                i++;
                continue;
            }
            if (c == '\n') {
                line++;
            }
            if (startLine < 0 && !Character.isWhitespace(c)) {
                startLine = line;
            }
            if (startLine >= 0) {
                current.append(c);
            }
            i++;
        }
        add(out, current, startLine);
        return out;
    }

    private static void add(List<SqlStatement> out, StringBuilder text, int startLine) {
        String statement = text.toString().strip();
        if (!statement.isEmpty()) {
            out.add(new SqlStatement(out.size() + 1, startLine, statement));
        }
    }
}
