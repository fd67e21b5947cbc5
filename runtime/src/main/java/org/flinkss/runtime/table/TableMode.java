package org.flinkss.runtime.table;

import java.util.Map;

/**
 * How a warehouse table is written, recorded in its properties ({@link TableOwner#MODE}) as Spark
 * names the output mode that writes it: the spelling on disk is {@link #text()}.
 */
public enum TableMode {

    /** A table that grows by one commit of new data files per micro-batch ({@code append}). */
    APPENDED("append"),

    /** A table replaced whole at each micro-batch: complete output mode ({@code complete}). */
    REPLACED("complete"),

    /**
     * A table whose rows are upserted by key at each micro-batch, one {@code MERGE} commit each
     * (Spark's {@code foreachBatch} + {@code MERGE INTO}): matched rows rewritten, new ones added
     * ({@code merge}).
     */
    MERGED("merge");

    private final String text;

    TableMode(String text) {
        this.text = text;
    }

    /** As a table's properties record it: {@code append}, {@code complete} or {@code merge}. */
    public String text() {
        return text;
    }

    /** The mode spelled {@code text}, as a table's properties record it. */
    public static TableMode parse(String text) {
        for (TableMode mode : values()) {
            if (mode.text.equals(text)) {
                return mode;
            }
        }
        throw new IllegalArgumentException(
                "unknown table mode '"
                        + text
                        + "' ("
                        + TableOwner.MODE
                        + "): a table is written in append or complete mode, or by a MERGE");
    }

    /** The mode a table's properties record; {@link #APPENDED} when they record none. */
    static TableMode of(Map<String, String> properties) {
        String text = properties.get(TableOwner.MODE);
        return text == null ? APPENDED : parse(text);
    }

    @Override
    public String toString() {
        return text;
    }
}
