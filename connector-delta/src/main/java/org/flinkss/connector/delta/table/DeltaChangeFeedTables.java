package org.flinkss.connector.delta.table;

import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.source.delta.ChangeFeedFormat;
import org.flinkss.runtime.sql.SqlColumns;
import org.flinkss.runtime.sql.SqlOptions;
import org.flinkss.runtime.sql.SqlTableException;
import org.flinkss.runtime.sql.SqlWatermark;
import org.flinkss.runtime.table.delta.ChangeDataFeed;
import org.flinkss.runtime.table.delta.DeltaSchema;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.util.Locale;

/**
 * The checks of a SQL table that reads a Delta table's change data feed ({@code 'read-change-feed'
 * = 'true'}), before anything runs: the table has the feed, the DDL's columns are the table's and
 * the feed's, the options are known; then its {@link DeltaChangeFeedTableSource}.
 */
final class DeltaChangeFeedTables {

    private DeltaChangeFeedTables() {}

    static DynamicTableSource source(
            DynamicTableFactory.Context context,
            String sqlTable,
            DeltaLocation location,
            ReadableConfig options) {
        DeltaTable delta = DeltaTable.forPath(location.uri());
        if (!delta.hasChangeFeed()) {
            throw new SqlTableException(
                    sqlTable,
                    "table '"
                            + sqlTable
                            + "' reads the change data feed of Delta table "
                            + location.uri()
                            + ", which has none ("
                            + ChangeDataFeed.PROPERTY
                            + " is not set): a table of a MERGE, update-mode or complete-mode"
                            + " query gets it when that query is reset (reset <query>), which"
                            + " empties it; or leave out 'read-change-feed' to read its rows");
        }
        String mode = options.get(DeltaTableOptions.CHANGELOG_MODE).toLowerCase(Locale.ROOT);
        if (!mode.equals("insert-only") && !mode.equals("all")) {
            throw new SqlTableException(
                    sqlTable,
                    "table '"
                            + sqlTable
                            + "': 'changelog-mode' = '"
                            + mode
                            + "' is not a mode: use 'insert-only' (Spark's rows with"
                            + " _change_type) or 'all' (Flink's changelog)");
        }
        Long startingVersion = options.getOptional(DeltaTableOptions.STARTING_VERSION).orElse(null);
        if (startingVersion != null && startingVersion < 0) {
            throw new SqlTableException(
                    sqlTable,
                    "table '"
                            + sqlTable
                            + "': 'starting-version' = '"
                            + startingVersion
                            + "' is negative: give a version of the table, 0 or more");
        }
        ResolvedSchema schema = context.getCatalogTable().getResolvedSchema();
        RowType declared = (RowType) schema.toPhysicalRowDataType().getLogicalType().copy(true);
        RowType tableRows = DeltaSchema.withMicros(location.warehouse().rowType(location.table()));
        RowType feedRows = ChangeFeedFormat.rowType(tableRows);
        int[] columns =
                SqlColumns.match(
                        sqlTable,
                        declared,
                        feedRows,
                        "the change data feed of Delta table " + location.uri());
        SqlWatermark watermark = SqlWatermark.of(sqlTable, schema).orElse(null);
        if (watermark != null && feedRows.getFieldIndex(watermark.column()) < 0) {
            throw new SqlTableException(
                    sqlTable,
                    "table '"
                            + sqlTable
                            + "' has its WATERMARK on '"
                            + watermark.column()
                            + "', which is not a column of the change data feed of Delta table "
                            + location.uri());
        }
        return new DeltaChangeFeedTableSource(
                sqlTable,
                location,
                declared,
                tableRows,
                columns,
                watermark,
                SqlOptions.readLimit(
                        options.getOptional(DeltaTableOptions.MAX_FILES_PER_TRIGGER).orElse(null),
                        null),
                startingVersion,
                mode.equals("all"));
    }

    /** The feed's options on a table that does not read the feed: refused, naming the way. */
    static void refuseFeedOptions(String sqlTable, ReadableConfig options) {
        for (var option :
                new String[] {
                    DeltaTableOptions.STARTING_VERSION.key(), DeltaTableOptions.CHANGELOG_MODE.key()
                }) {
            if (options.toMap().containsKey(option)) {
                throw new SqlTableException(
                        sqlTable,
                        "table '"
                                + sqlTable
                                + "' gives '"
                                + option
                                + "', an option of a change data feed: add 'read-change-feed' ="
                                + " 'true', or leave it out");
            }
        }
    }
}
