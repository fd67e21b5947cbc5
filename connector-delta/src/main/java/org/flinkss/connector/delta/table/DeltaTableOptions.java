package org.flinkss.connector.delta.table;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/** The options of {@code 'connector' = 'delta'}; docs/sql.md lists them with examples. */
public final class DeltaTableOptions {

    private DeltaTableOptions() {}

    public static final ConfigOption<String> TABLE =
            ConfigOptions.key("table")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("A table of the warehouse (--warehouse), by name.");

    public static final ConfigOption<String> PATH =
            ConfigOptions.key("path")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "The table's folder, any URI Flink's file systems read (a local"
                                    + " folder, s3://bucket/prefix/table); a sink's folder must"
                                    + " be in the warehouse.");

    public static final ConfigOption<Integer> MAX_FILES_PER_TRIGGER =
            ConfigOptions.key("max-files-per-trigger")
                    .intType()
                    .noDefaultValue()
                    .withDescription(
                            "Source: at most this many data files per micro-batch (Spark's"
                                    + " maxFilesPerTrigger); the run's --max-files-per-trigger"
                                    + " otherwise.");

    public static final ConfigOption<MemorySize> MAX_BYTES_PER_TRIGGER =
            ConfigOptions.key("max-bytes-per-trigger")
                    .memoryType()
                    .noDefaultValue()
                    .withDescription(
                            "Source: files while a micro-batch stays within this size, one file"
                                    + " at least (Spark's maxBytesPerTrigger), e.g. '64mb'.");

    public static final ConfigOption<String> SINK_MODE =
            ConfigOptions.key("sink.mode")
                    .stringType()
                    .defaultValue("append")
                    .withDescription(
                            "Sink: 'append' (one commit of the batch's new rows per micro-batch)"
                                    + " or 'complete' (the table replaced by the whole result at"
                                    + " every micro-batch, Spark's complete mode; needs a PRIMARY"
                                    + " KEY: the grouping columns).");

    public static final ConfigOption<Boolean> READ_CHANGE_FEED =
            ConfigOptions.key("read-change-feed")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Source: read the table's change data feed (Spark's readChangeFeed):"
                                    + " its columns, then _change_type, _commit_version and"
                                    + " _commit_timestamp, version by version. The table needs"
                                    + " delta.enableChangeDataFeed.");

    public static final ConfigOption<Long> STARTING_VERSION =
            ConfigOptions.key("starting-version")
                    .longType()
                    .noDefaultValue()
                    .withDescription(
                            "Source with 'read-change-feed': the first version whose changes"
                                    + " are read (Spark's startingVersion); without it the"
                                    + " stream starts with the table's current snapshot as"
                                    + " inserts.");

    public static final ConfigOption<String> CHANGELOG_MODE =
            ConfigOptions.key("changelog-mode")
                    .stringType()
                    .defaultValue("insert-only")
                    .withDescription(
                            "Source with 'read-change-feed': 'insert-only' (Spark's form: every"
                                    + " change a row, its kind in _change_type) or 'all' (Flink's"
                                    + " changelog: insert +I, update_preimage -U,"
                                    + " update_postimage +U, delete -D; one version a batch).");
}
