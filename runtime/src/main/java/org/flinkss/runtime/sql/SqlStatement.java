package org.flinkss.runtime.sql;

import java.io.Serializable;

/**
 * One statement of a SQL file: its text without the closing semicolon, its number in the file (from
 * 1) and the line it starts on, so that an error can name the file, the statement and the line.
 */
public record SqlStatement(int number, int line, String text) implements Serializable {

    /** The statement's first words, for messages: {@code INSERT INTO events_5min ...}. */
    public String head() {
        String flat = text.replaceAll("\\s+", " ").trim();
        return flat.length() <= 60 ? flat : flat.substring(0, 57) + "...";
    }

    /** The line of the file that line {@code lineInStatement} (from 1) of this statement is on. */
    public int fileLine(int lineInStatement) {
        return line + Math.max(0, lineInStatement - 1);
    }
}
