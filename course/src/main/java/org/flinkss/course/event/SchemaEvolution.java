package org.flinkss.course.event;

import java.util.Locale;

/**
 * What bronze does with a landed top-level field that {@code events_bronze} does not have ({@code
 * run bronze --schema-evolution MODE}), after Auto Loader's {@code cloudFiles.schemaEvolutionMode}.
 */
public enum SchemaEvolution {
    /**
     * The explicit schema: the field is skipped, or kept in {@code _rescued_data} with {@code
     * --rescued-data} (Auto Loader's {@code none} and {@code rescue}).
     */
    NONE,

    /**
     * The field becomes a nullable column of the table, in the commit of the batch that brought it
     * ({@link NewColumns}); rows committed before read it as null. Unlike Auto Loader, the run does
     * not stop to pick the new schema up: the batch commits with it.
     */
    ADD_NEW_COLUMNS;

    /** How the command line spells it: {@code none}, {@code add-new-columns}. */
    public String flag() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The mode the command line names. */
    public static SchemaEvolution of(String flag) {
        for (SchemaEvolution mode : values()) {
            if (mode.flag().equals(flag)) {
                return mode;
            }
        }
        throw new IllegalArgumentException(
                "--schema-evolution takes none or add-new-columns, not '" + flag + "'");
    }
}
