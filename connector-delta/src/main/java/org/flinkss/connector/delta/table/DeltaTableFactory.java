package org.flinkss.connector.delta.table;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.catalog.UniqueConstraint;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.sql.ConstrainedTableFactory;
import org.flinkss.runtime.sql.SqlColumns;
import org.flinkss.runtime.sql.SqlOptions;
import org.flinkss.runtime.sql.SqlSession;
import org.flinkss.runtime.sql.SqlTableException;
import org.flinkss.runtime.sql.SqlWatermark;
import org.flinkss.runtime.table.TableMode;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.table.delta.DeltaSchema;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code 'connector' = 'delta'}: a Delta table as a SQL source ({@link DeltaTableSource}) and sink
 * ({@link DeltaTableSink}) of a query run by {@code sql --file}, found by Flink's factory discovery
 * ({@code META-INF/services/org.apache.flink.table.factories.Factory}). Its options are {@link
 * DeltaTableOptions}. A table's DDL is checked against the Delta table it names before anything
 * runs.
 */
public final class DeltaTableFactory
        implements DynamicTableSourceFactory, DynamicTableSinkFactory, ConstrainedTableFactory {

    public static final String IDENTIFIER = "delta";

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(
                DeltaTableOptions.TABLE,
                DeltaTableOptions.PATH,
                DeltaTableOptions.MAX_FILES_PER_TRIGGER,
                DeltaTableOptions.MAX_BYTES_PER_TRIGGER,
                DeltaTableOptions.SINK_MODE,
                DeltaTableOptions.READ_CHANGE_FEED,
                DeltaTableOptions.STARTING_VERSION,
                DeltaTableOptions.CHANGELOG_MODE);
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        Declared declared = declared(context);
        String sqlTable = declared.sqlTable();
        DeltaLocation location = declared.location();
        String table = location.table();
        if (!location.warehouse().exists(table)) {
            throw new SqlTableException(
                    sqlTable,
                    "table '"
                            + sqlTable
                            + "' reads Delta table "
                            + location.uri()
                            + ", which does not exist: run the query that writes it first, or"
                            + " check 'table'/'path'");
        }
        if (declared.options().get(DeltaTableOptions.READ_CHANGE_FEED)) {
            return DeltaChangeFeedTables.source(context, sqlTable, location, declared.options());
        }
        DeltaChangeFeedTables.refuseFeedOptions(sqlTable, declared.options());
        if (location.warehouse().writtenBy(table) == TableMode.REPLACED) {
            throw new SqlTableException(
                    sqlTable,
                    "table '"
                            + sqlTable
                            + "' reads Delta table "
                            + location.uri()
                            + ", which its writer replaces whole at every batch (complete mode):"
                            + " it has no new rows to read as a stream");
        }
        ResolvedSchema schema = context.getCatalogTable().getResolvedSchema();
        RowType columnsOf = (RowType) schema.toPhysicalRowDataType().getLogicalType().copy(true);
        RowType tableRows = DeltaSchema.withMicros(location.warehouse().rowType(table));
        int[] columns =
                SqlColumns.match(sqlTable, columnsOf, tableRows, "Delta table " + location.uri());
        SqlWatermark watermark = SqlWatermark.of(sqlTable, schema).orElse(null);
        if (watermark != null && tableRows.getFieldIndex(watermark.column()) < 0) {
            throw new SqlTableException(
                    sqlTable,
                    "table '"
                            + sqlTable
                            + "' has its WATERMARK on '"
                            + watermark.column()
                            + "', which is not a column of Delta table "
                            + location.uri()
                            + ": the watermark's column must be one of its TIMESTAMP columns");
        }
        ReadableConfig options = declared.options();
        return new DeltaTableSource(
                sqlTable,
                location,
                columnsOf,
                tableRows,
                columns,
                watermark,
                SqlOptions.readLimit(
                        options.getOptional(DeltaTableOptions.MAX_FILES_PER_TRIGGER).orElse(null),
                        options.getOptional(DeltaTableOptions.MAX_BYTES_PER_TRIGGER).orElse(null)));
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        Declared given = declared(context);
        String sqlTable = given.sqlTable();
        ReadableConfig options = given.options();
        DeltaLocation location = given.location();
        Warehouse warehouse = location.warehouse();
        if (!location.inQueryWarehouse()) {
            throw new SqlTableException(
                    sqlTable,
                    "table '"
                            + sqlTable
                            + "' writes "
                            + location.uri()
                            + ", outside the query's warehouse (--warehouse)"
                            + ": a query writes tables of its --warehouse (give 'table' = '"
                            + location.table()
                            + "', or run with --warehouse at its folder)");
        }
        ResolvedSchema schema = context.getCatalogTable().getResolvedSchema();
        RowType declared = (RowType) schema.toPhysicalRowDataType().getLogicalType().copy(true);
        String table = location.table();
        if (warehouse.exists(table)) {
            RowType existing = warehouse.rowType(table);
            SqlColumns.match(sqlTable, declared, existing, "Delta table " + location.uri());
            if (existing.getFieldCount() != declared.getFieldCount()) {
                throw new SqlTableException(
                        sqlTable,
                        "table '"
                                + sqlTable
                                + "' declares "
                                + declared.getFieldCount()
                                + " columns, and Delta table "
                                + location.uri()
                                + " has "
                                + existing.getFieldCount()
                                + " ("
                                + SqlColumns.describe(existing)
                                + "): a sink declares every column of its table");
            }
        }
        String mode = options.get(DeltaTableOptions.SINK_MODE).toLowerCase(Locale.ROOT);
        if (!mode.equals("append") && !mode.equals("complete")) {
            throw new SqlTableException(
                    sqlTable,
                    "table '"
                            + sqlTable
                            + "': 'sink.mode' = '"
                            + mode
                            + "' is not a mode: use 'append' or 'complete'");
        }
        boolean complete = mode.equals("complete");
        List<String> keys =
                schema.getPrimaryKey().map(UniqueConstraint::getColumns).orElse(List.of());
        if (complete && keys.isEmpty()) {
            throw new SqlTableException(
                    sqlTable,
                    "table '"
                            + sqlTable
                            + "' has 'sink.mode' = 'complete' and no primary key: declare"
                            + " PRIMARY KEY (<the GROUP BY columns>) NOT ENFORCED, the key each"
                            + " batch's changes are merged by");
        }
        return new DeltaTableSink(sqlTable, location, declared, complete, keys);
    }

    /** The Delta table that {@code 'table'} or {@code 'path'} names (ALTER TABLE's target). */
    @Override
    public Target constrainedTable(
            String sqlTable, Map<String, String> options, Warehouse warehouse) {
        DeltaLocation location =
                DeltaLocation.of(sqlTable, Configuration.fromMap(options), warehouse);
        return new Target(location.warehouse(), location.table(), location.inQueryWarehouse());
    }

    /** The SQL table's name, checked options, and where its Delta table is. */
    private record Declared(String sqlTable, ReadableConfig options, DeltaLocation location) {}

    private Declared declared(Context context) {
        String sqlTable = context.getObjectIdentifier().getObjectName();
        ReadableConfig options =
                SqlOptions.validated(FactoryUtil.createTableFactoryHelper(this, context), sqlTable);
        Warehouse warehouse = SqlSession.current(IDENTIFIER).context().warehouse();
        return new Declared(sqlTable, options, DeltaLocation.of(sqlTable, options, warehouse));
    }
}
