package org.flinkss.runtime.table.delta;

import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Delta's change data feed, as the protocol's "Change Data Files" section and delta-spark write it:
 * a table with {@link #PROPERTY} {@code = true} records, in each version that changes rows other
 * than by inserting them, {@code cdc} actions naming Parquet files under {@link #FOLDER} that hold
 * the changed rows with the column {@link #CHANGE_TYPE}; a version without such files has its
 * {@code add} files as inserted rows and its {@code remove} files as deleted ones. Spark reads it
 * with {@code readChangeFeed}, this project with {@code table changes}.
 */
public final class ChangeDataFeed {

    /** The table property that turns the feed on. */
    public static final String PROPERTY = "delta.enableChangeDataFeed";

    /** The folder of the change data files, inside the table's. */
    public static final String FOLDER = "_change_data";

    /** The change data files' column of the change's kind ({@link ChangeType}). */
    public static final String CHANGE_TYPE = "_change_type";

    /** The feed's column of the version that made the change (Spark's {@code table_changes}). */
    public static final String COMMIT_VERSION = "_commit_version";

    /** The feed's column of that version's time. */
    public static final String COMMIT_TIMESTAMP = "_commit_timestamp";

    /** A change's kind, as {@link #CHANGE_TYPE} spells it. */
    public enum ChangeType {
        INSERT("insert"),
        UPDATE_PREIMAGE("update_preimage"),
        UPDATE_POSTIMAGE("update_postimage"),
        DELETE("delete");

        private final String text;

        ChangeType(String text) {
            this.text = text;
        }

        public String text() {
            return text;
        }
    }

    private ChangeDataFeed() {}

    /** Whether table properties turn the feed on. */
    public static boolean enabledIn(Map<String, String> properties) {
        return Boolean.parseBoolean(properties.getOrDefault(PROPERTY, "false").trim());
    }

    /** A change data file's columns: the table's, then {@link #CHANGE_TYPE}. */
    public static RowType changeFileType(RowType table) {
        List<RowType.RowField> fields = new ArrayList<>(table.getFields());
        fields.add(new RowType.RowField(CHANGE_TYPE, (LogicalType) VarCharType.STRING_TYPE));
        return new RowType(fields);
    }
}
