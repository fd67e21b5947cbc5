package org.flinkss.course.sql;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.sql.SqlColumns;
import org.flinkss.runtime.sql.SqlOptions;
import org.flinkss.runtime.sql.SqlTableException;
import org.flinkss.runtime.sql.SqlWatermark;
import org.flinkss.runtime.storage.Storage;

import java.util.Set;

/**
 * {@code 'connector' = 'landing-files'}: the landing folder as a SQL source, read exactly as {@code
 * run bronze} reads it (Spark's {@code readStream.schema(...).json(folder)} with the course's
 * schema and Spark's JSON rules; lines that are not JSON or do not fit the schema go to the
 * optional {@code 'quarantine-table'}). The DDL picks columns of that schema.
 */
public final class LandingFilesTableFactory implements DynamicTableSourceFactory {

    public static final String IDENTIFIER = "landing-files";

    public static final ConfigOption<String> PATH =
            ConfigOptions.key("path")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("The landing folder: a local folder or s3://bucket/prefix.");

    public static final ConfigOption<String> FORMAT =
            ConfigOptions.key("format")
                    .stringType()
                    .defaultValue("json")
                    .withDescription("'json': JSON lines in files named *.json, any depth.");

    public static final ConfigOption<Integer> MAX_FILES_PER_TRIGGER =
            ConfigOptions.key("max-files-per-trigger")
                    .intType()
                    .noDefaultValue()
                    .withDescription("At most this many files per micro-batch.");

    public static final ConfigOption<MemorySize> MAX_BYTES_PER_TRIGGER =
            ConfigOptions.key("max-bytes-per-trigger")
                    .memoryType()
                    .noDefaultValue()
                    .withDescription("Files while a micro-batch stays within this size.");

    public static final ConfigOption<Boolean> SKIP_MISSING_FILES =
            ConfigOptions.key("skip-missing-files")
                    .booleanType()
                    .noDefaultValue()
                    .withDescription(
                            "A planned file that is gone when read is skipped (Spark's"
                                    + " ignoreMissingFiles); the run's --skip-missing-files"
                                    + " otherwise.");

    public static final ConfigOption<String> QUARANTINE_TABLE =
            ConfigOptions.key("quarantine-table")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "A table of the warehouse for the lines that are not JSON or do not"
                                    + " fit the schema: file, line, raw, reason.");

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(PATH);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(
                FORMAT,
                MAX_FILES_PER_TRIGGER,
                MAX_BYTES_PER_TRIGGER,
                SKIP_MISSING_FILES,
                QUARANTINE_TABLE);
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        String sqlTable = context.getObjectIdentifier().getObjectName();
        ReadableConfig options =
                SqlOptions.validated(FactoryUtil.createTableFactoryHelper(this, context), sqlTable);
        if (!options.get(FORMAT).equals("json")) {
            throw new SqlTableException(
                    sqlTable,
                    "table '"
                            + sqlTable
                            + "': 'format' = '"
                            + options.get(FORMAT)
                            + "' is not read here: the landing folder holds JSON lines ('json')");
        }
        ResolvedSchema schema = context.getCatalogTable().getResolvedSchema();
        RowType declared = (RowType) schema.toPhysicalRowDataType().getLogicalType().copy(true);
        String folder = options.get(PATH);
        int[] columns =
                SqlColumns.match(
                        sqlTable,
                        declared,
                        EventTables.EVENT_ROW,
                        "the landing folder " + folder + "'s schema");
        SqlWatermark watermark = SqlWatermark.of(sqlTable, schema).orElse(null);
        if (watermark != null && !watermark.column().equals("event_ts")) {
            throw new SqlTableException(
                    sqlTable,
                    "table '"
                            + sqlTable
                            + "' has its WATERMARK on '"
                            + watermark.column()
                            + "': the landing folder's event time is event_ts");
        }
        return new LandingFilesTableSource(
                sqlTable,
                Storage.location(folder),
                declared,
                columns,
                watermark,
                SqlOptions.readLimit(
                        options.getOptional(MAX_FILES_PER_TRIGGER).orElse(null),
                        options.getOptional(MAX_BYTES_PER_TRIGGER).orElse(null)),
                options.getOptional(SKIP_MISSING_FILES).orElse(null),
                options.getOptional(QUARANTINE_TABLE).orElse(null));
    }
}
