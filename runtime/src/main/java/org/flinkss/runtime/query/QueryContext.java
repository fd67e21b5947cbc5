package org.flinkss.runtime.query;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.BasicTypeInfo;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.function.SerializableFunction;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.checkpoint.CheckpointMetadata;
import org.flinkss.runtime.checkpoint.QueryIdentity;
import org.flinkss.runtime.progress.ProgressCounter;
import org.flinkss.runtime.progress.RunScope;
import org.flinkss.runtime.sink.ChangesPerBatch;
import org.flinkss.runtime.sink.delta.AppendCommit;
import org.flinkss.runtime.sink.delta.CompleteCommit;
import org.flinkss.runtime.sink.delta.DataFileWriter;
import org.flinkss.runtime.sink.delta.DeltaCommitter;
import org.flinkss.runtime.sink.delta.MergeCommit;
import org.flinkss.runtime.sink.delta.TableCommit;
import org.flinkss.runtime.sink.jdbc.Database;
import org.flinkss.runtime.sink.jdbc.SqlTableOwners;
import org.flinkss.runtime.source.ReadLimit;
import org.flinkss.runtime.source.ReadOrder;
import org.flinkss.runtime.source.RecordFormat;
import org.flinkss.runtime.source.SourceSpec;
import org.flinkss.runtime.source.SplitPlanner;
import org.flinkss.runtime.source.WatermarkNode;
import org.flinkss.runtime.source.WorkSplit;
import org.flinkss.runtime.source.delta.DeltaPlanner;
import org.flinkss.runtime.source.delta.DeltaRowFormat;
import org.flinkss.runtime.source.files.FilePlanner;
import org.flinkss.runtime.source.files.FileSplit;
import org.flinkss.runtime.source.impl.MicroBatchSource;
import org.flinkss.runtime.table.OpenColumns;
import org.flinkss.runtime.table.TableDef;
import org.flinkss.runtime.table.TableMode;
import org.flinkss.runtime.table.TableOwner;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.table.delta.DeltaSchema;
import org.flinkss.runtime.trigger.Trigger;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What a {@link Query} builds its graph with: sources that read in micro-batches, and sinks that
 * commit with checkpoints. The trigger, the checkpoint directory and the run are attached here, in
 * one place, so that the query's own code never sees them.
 *
 * <p>Every source and sink gets a stable uid derived from its name: a later run's job maps its
 * state back by uid, so a changed filter or a changed parallelism keeps the checkpoint.
 */
public final class QueryContext {

    private final String queryName;
    private final StreamExecutionEnvironment env;
    private final RunScope scope;
    private final Trigger trigger;
    private final ReadLimit readLimit;

    private final boolean skipMissingFiles;
    private final Warehouse warehouse;

    private final List<String> sources = new ArrayList<>();
    private final List<String> sourceNames = new ArrayList<>();
    private final Map<String, String> sinks = new LinkedHashMap<>();
    private final List<String> skippedFilesTables = new ArrayList<>();

    /** The run's expectations and the tables they check ({@code --expect}). */
    private final ExpectationTables expected;

    /** The query's watermark nodes by source, and the run's {@code --watermark-policy}. */
    private final WatermarkInputs watermarkInputs;

    private final List<String> stateful = new ArrayList<>();
    private final List<Runnable> beforeRun = new ArrayList<>();
    private final List<String> commitsBeforeRun = new ArrayList<>();
    private final Map<String, Map<String, String>> plannedChecks = new HashMap<>();
    private final List<String> tables = new ArrayList<>();

    /** The mode of each table of the warehouse written. */
    private final Map<String, TableMode> tableModes = new LinkedHashMap<>();

    private final Map<String, RowType> tableRows = new LinkedHashMap<>();

    /** The columns of every table written, warehouse and SQL: part of the query's identity. */
    private final Map<String, List<String>> tableColumns = new LinkedHashMap<>();

    /** The tables of {@link #toGrowingTable}. */
    private final Set<String> growing = new HashSet<>();

    /** {@code --until-final}: the Delta tables read, checked once the graph is built. */
    private final UntilFinal untilFinal;

    /** The run's trigger, rate limits and missing-file policy come from {@code options}. */
    QueryContext(
            String queryName,
            StreamExecutionEnvironment env,
            RunScope scope,
            RunOptions options,
            Warehouse warehouse) {
        this.queryName = queryName;
        this.env = env;
        this.scope = scope;
        this.trigger = options.trigger;
        this.readLimit = options.readLimit;
        this.skipMissingFiles = options.skipMissingFiles;
        this.warehouse = warehouse;
        this.expected = new ExpectationTables(options.expectations);
        this.untilFinal = new UntilFinal(options.untilFinal);
        this.watermarkInputs = new WatermarkInputs(queryName, options.watermarkPolicy);
    }

    public StreamExecutionEnvironment env() {
        return env;
    }

    public Warehouse warehouse() {
        return warehouse;
    }

    public String queryName() {
        return queryName;
    }

    /** The run: operators that report progress carry it. */
    public RunScope scope() {
        return scope;
    }

    public String runId() {
        return scope.runId();
    }

    /**
     * Files under {@code folder} (recursively, names ending in {@code suffix}) as a stream, Spark's
     * file source: each batch reads files that earlier batches did not, at most as many as the rate
     * limits allow. A planned file that is gone when read fails the run naming it or, with {@code
     * --skip-missing-files}, becomes the format's {@link RecordFormat#skipped} record. The folder
     * may be on any storage Flink's file system serves: a local one, or {@code s3://bucket/prefix}.
     *
     * @param watermarkDelay the delay of the query's {@code withWatermark} on this source, or null
     */
    public <T> DataStream<T> files(
            String name,
            Path folder,
            String suffix,
            RecordFormat<T, FileSplit> format,
            @Nullable Duration watermarkDelay) {
        return files(name, new FilePlanner(folder, suffix), suffix, format, watermarkDelay);
    }

    private <T> DataStream<T> files(
            String name,
            FilePlanner planner,
            String suffix,
            RecordFormat<T, FileSplit> format,
            @Nullable Duration watermarkDelay) {
        return source(
                name,
                "FileStreamSource[" + planner.describe() + "*" + suffix + "]",
                planner,
                format,
                nodes(watermarkDelay),
                skipMissingFiles,
                ReadOrder.CONTIGUOUS);
    }

    /**
     * A Delta table of the warehouse as a stream, Spark's {@code readStream.table(name)}: the
     * table's snapshot when the query first reads it, then the files each later version adds
     * ({@link DeltaPlanner}).
     *
     * @param eventTimeColumn the TIMESTAMP column that carries event time, or null
     */
    public DataStream<RowData> tableStream(
            String table, @Nullable String eventTimeColumn, @Nullable Duration watermarkDelay) {
        return tableStreamWithWatermarks(table, eventTimeColumn, nodes(watermarkDelay));
    }

    /**
     * As {@link #tableStream(String, String, Duration)}, with the query's {@code withWatermark}
     * nodes on the table: the stream's watermark is the minimum of theirs ({@link WatermarkNode}).
     *
     * @param nodes the watermark nodes, none for no watermark
     */
    public DataStream<RowData> tableStreamWithWatermarks(
            String table, @Nullable String eventTimeColumn, List<WatermarkNode<RowData>> nodes) {
        return tableStreamWithWatermarks(table, eventTimeColumn, nodes, ReadOrder.CONTIGUOUS);
    }

    /**
     * As {@link #tableStreamWithWatermarks(String, String, List)}, each batch read in {@code
     * order}: {@link ReadOrder#ONE_READER} for a query whose result depends on the order of a key's
     * rows in a batch (a dedup keeps the first, an upsert the last, in the table's order: its
     * versions, the files of each version as its log lists them, their rows).
     */
    public DataStream<RowData> tableStreamWithWatermarks(
            String table,
            @Nullable String eventTimeColumn,
            List<WatermarkNode<RowData>> nodes,
            ReadOrder order) {
        // Timestamps at microseconds whatever precision the table recorded (an earlier version's
        // TIMESTAMP_LTZ(3)): one row type for readers, and Spark's rows keep their microseconds.
        var rowType = DeltaSchema.withMicros(warehouse.rowType(table));
        if (warehouse.writtenBy(table) == TableMode.REPLACED) {
            throw new QueryException(
                    "table '"
                            + table
                            + "' is replaced whole at every batch (its writer, query '"
                            + warehouse.writer(table)
                            + "', runs in complete mode), so it has no new rows to read as a"
                            + " stream, as a Delta table overwritten in complete mode. Read it with"
                            + " 'table show "
                            + table
                            + "', or run its writer in append or update mode.");
        }
        int column = eventTimeColumn == null ? -1 : rowType.getFieldIndex(eventTimeColumn);
        if (eventTimeColumn != null && column < 0) {
            throw new QueryException(
                    "table '"
                            + table
                            + "' has no column '"
                            + eventTimeColumn
                            + "' (columns: "
                            + rowType.getFieldNames()
                            + ")");
        }
        String folder = warehouse.folder(table);
        return source(
                table,
                "DeltaSource[" + warehouse.uri(table) + "]",
                new DeltaPlanner(table, folder),
                new DeltaRowFormat(rowType, column),
                nodes,
                false,
                order);
    }

    /** Any micro-batch source: a planner says what each batch reads, a format how to read it. */
    public <T, S extends WorkSplit> DataStream<T> source(
            String name,
            String description,
            SplitPlanner<S> planner,
            RecordFormat<T, S> format,
            @Nullable Duration watermarkDelay) {
        return source(name, description, planner, format, watermarkDelay, readLimit, false);
    }

    /**
     * As {@link #source(String, String, SplitPlanner, RecordFormat, Duration)}, with this source's
     * own rate limits instead of the run's (a SQL table's {@code max-files-per-trigger}).
     */
    public <T, S extends WorkSplit> DataStream<T> source(
            String name,
            String description,
            SplitPlanner<S> planner,
            RecordFormat<T, S> format,
            @Nullable Duration watermarkDelay,
            ReadLimit limit,
            boolean skipMissing) {
        return source(
                name,
                description,
                planner,
                format,
                nodes(watermarkDelay),
                skipMissing,
                limit,
                ReadOrder.ANY_READER);
    }

    /** How much one batch of each source may read, unless a source says otherwise. */
    public ReadLimit readLimit() {
        return readLimit;
    }

    /**
     * Whether the run skips planned files that are gone when read ({@code --skip-missing-files}).
     */
    public boolean skipMissingFiles() {
        return skipMissingFiles;
    }

    /** A {@code withWatermark} straight on the source with this delay, or none if it is null. */
    private static <T> List<WatermarkNode<T>> nodes(@Nullable Duration watermarkDelay) {
        return watermarkDelay == null ? List.of() : List.of(WatermarkNode.allRows(watermarkDelay));
    }

    private <T, S extends WorkSplit> DataStream<T> source(
            String name,
            String description,
            SplitPlanner<S> planner,
            RecordFormat<T, S> format,
            List<WatermarkNode<T>> nodes,
            boolean skipMissing,
            ReadOrder order) {
        return source(name, description, planner, format, nodes, skipMissing, readLimit, order);
    }

    private <T, S extends WorkSplit> DataStream<T> source(
            String name,
            String description,
            SplitPlanner<S> planner,
            RecordFormat<T, S> format,
            List<WatermarkNode<T>> nodes,
            boolean skipMissing,
            ReadLimit limit,
            ReadOrder order) {
        if (sourceNames.contains(name)) {
            throw new IllegalArgumentException(
                    "query '" + queryName + "' has two sources named '" + name + "'");
        }
        if (trigger.isRealTime() && !planner.readsInRealTime()) {
            throw new QueryException(RealTimeRefusal.source(queryName, description));
        }
        sourceNames.add(name);
        sources.add(description);
        untilFinal.reads(planner);
        watermarkInputs.add(name, nodes.size());
        SourceSpec spec =
                new SourceSpec(name, scope, trigger, limit, skipMissing, order)
                        .withWatermarkPolicy(watermarkInputs.policy());
        return env.fromSource(
                        new MicroBatchSource<>(spec, planner, format, nodes),
                        WatermarkStrategy.noWatermarks(),
                        name)
                .uid("source-" + name)
                .returns(format.producedType());
    }

    /**
     * Appends a stream to a Delta table of the warehouse, one Delta commit per micro-batch (Spark's
     * Delta sink): parallel writers stage data files, one committer commits each batch's files once
     * the checkpoint that ends the batch has completed, with a {@code txn} action that makes a
     * replayed batch a no-op ({@link DeltaCommitter}).
     *
     * @return the committer's (empty) output, for an API that wants a sink at the end
     */
    public <T> DataStream<Void> toTable(DataStream<T> stream, TableDef<T> table) {
        return expected.checks(table.name(), warehouse)
                ? expected.checked(this, stream, table)
                : append(stream, table);
    }

    /** {@link #toTable} without expectations. */
    <T> DataStream<Void> append(DataStream<T> stream, TableDef<T> table) {
        return append(stream, table, new AppendCommit());
    }

    /**
     * {@link #append} of a table whose batch commits are {@code commit}'s, and whose columns may
     * grow: an existing table with fewer of them gains the others (nullable) in a commit of its own
     * before the run, and a checkpoint that recorded fewer goes on ({@code <table>_rejected} before
     * it had {@code _batch_id}).
     */
    <T> DataStream<Void> appendGrowing(
            DataStream<T> stream, TableDef<T> table, TableCommit commit) {
        growing.add(table.name());
        return append(stream, table, commit);
    }

    private <T> DataStream<Void> append(
            DataStream<T> stream, TableDef<T> table, TableCommit commit) {
        String name = table.name();
        DataStream<RowData> rows =
                ConstraintChecks.checked(
                        stream.map(new ProgressCounter<>(scope, name, table.rowFunction()))
                                .returns(InternalTypeInfo.of(table.rowType()))
                                .name("to-" + name)
                                .uid("rows-" + name),
                        name,
                        table.rowType(),
                        this);
        DataStream<Void> committed =
                toDelta(
                        rows.transform(
                                        "write " + name,
                                        PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO,
                                        new DataFileWriter(
                                                name,
                                                warehouse.folder(name),
                                                table.rowType(),
                                                scope))
                                .name(name)
                                .uid("sink-" + name),
                        name,
                        table.rowType(),
                        TableMode.APPENDED,
                        commit);
        sinks.put(name, "DeltaSink[" + warehouse.uri(name) + "]");
        return committed;
    }

    /**
     * {@link #toTable} for a table whose columns grow with its data (Auto Loader's {@code
     * addNewColumns}): each record gives the table's fixed columns ({@code table}) and, as a JSON
     * object, further ones ({@code openColumns}, typed as {@link OpenColumns} says). A field the
     * table does not have becomes a nullable column in the commit of the batch that brought it (one
     * version: the new schema, the data, the {@code txn}); rows committed before read it as null.
     * The table's columns as this run starts (the existing table's, then fixed ones it lacks, which
     * it gains in a commit of their own before the run) are part of the query's identity, and a
     * checkpoint made with fewer of them goes on.
     *
     * @param openColumns a record's further columns, a JSON object, or null for none
     */
    public <T> DataStream<Void> toGrowingTable(
            DataStream<T> stream, TableDef<T> table, SerializableFunction<T, String> openColumns) {
        DataStream<Void> committed =
                GrowingTables.toTable(this, stream, table, openColumns, queryName);
        growing.add(table.name());
        sinks.put(table.name(), "DeltaSink[" + warehouse.uri(table.name()) + "]");
        return committed;
    }

    /**
     * The committer of a Delta table: parallelism 1, after the table's writers. Its uid is the one
     * Flink gave the committer of the sink this replaced, so that checkpoints made before keep
     * restoring.
     */
    SingleOutputStreamOperator<Void> toDelta(
            DataStream<byte[]> staged,
            String name,
            RowType rowType,
            TableMode mode,
            TableCommit commit) {
        if (sourceNames.size() != 1) {
            throw new QueryException(
                    "query '"
                            + queryName
                            + "' writes table '"
                            + name
                            + "' but has "
                            + (sourceNames.isEmpty() ? "no source" : "sources " + sourceNames)
                            + ": a Delta table's commits follow the micro-batches of exactly one"
                            + " source, so a query that writes tables reads one source (declare"
                            + " it before the tables)");
        }
        tables.add(name);
        tableModes.put(name, mode);
        tableRows.put(name, rowType);
        tableColumns.put(name, QueryIdentity.columns(rowType));
        return staged.transform(
                        "commit " + name,
                        BasicTypeInfo.VOID_TYPE_INFO,
                        new DeltaCommitter(
                                name,
                                warehouse.folder(name),
                                sourceNames.get(0),
                                scope,
                                commit,
                                FinalWindows.column(rowType, mode)))
                .setParallelism(1)
                // Alone in its task, its max parallelism derived: chained into a parallelism-1
                // run's task it took that task's (128) and a configured 1 then refused the
                // checkpoint at any other parallelism; a checkpoint holds either, both restore.
                .disableChaining()
                .name("commit " + name)
                .uid("Sink Committer: sink-" + name);
    }

    /**
     * Appends the files that a source skipped because they were gone ({@code --skip-missing-files})
     * to a table, exactly once as {@link #toTable} does. The table is the source's bookkeeping,
     * declared whether or not anything is skipped; it is not part of the query's identity, so a
     * checkpoint made before it existed stays the query's (see {@link QueryIdentity}).
     */
    public <T> void toSkippedFilesTable(DataStream<T> skipped, TableDef<T> table) {
        toTable(skipped, table);
        skippedFilesTables.add(table.name());
    }

    /**
     * Any Sink V2 (console, collect, Kafka, JDBC), counted in progress under {@code name}.
     *
     * @return the sink's end of the stream
     */
    public <T> DataStreamSink<T> toSink(
            DataStream<T> stream, String name, String description, Sink<T> sink) {
        SingleOutputStreamOperator<T> counted =
                stream.map(new ProgressCounter<>(scope, name, x -> x))
                        .returns(stream.getType())
                        .name("count-" + name)
                        .uid("rows-" + name);
        DataStreamSink<T> end = counted.sinkTo(sink).name(name).uid("sink-" + name);
        sinks.put(name, description);
        return end;
    }

    /**
     * Upserts a stream into a SQL table by key, exactly once: Spark's {@code foreachBatch} + {@code
     * MERGE} of topic 11.13. Each batch is one transaction (the sink runs with parallelism 1),
     * recorded with the query's id and the batch id, so a replayed batch changes nothing.
     */
    public void toUpsertTable(
            DataStream<RowData> rows,
            String table,
            RowType rowType,
            String keyColumn,
            Database database) {
        if (trigger.isRealTime()) {
            throw new QueryException(RealTimeRefusal.jdbcTable(queryName, table));
        }
        SqlUpsertTables.upsert(this, rows, table, rowType, List.of(keyColumn), database);
    }

    /**
     * Update output mode: an aggregation's changelog by {@code keyColumns} upserted into a SQL
     * table, the last change of each key once per batch, in the batch's transaction (see {@link
     * #toUpsertTable}). Partial results are overwritten as their windows grow.
     */
    public void toUpdatedTable(
            DataStream<RowData> changes,
            String table,
            RowType rowType,
            List<String> keyColumns,
            Database database) {
        if (trigger.isRealTime()) {
            throw new QueryException(RealTimeRefusal.jdbcTable(queryName, table));
        }
        SqlUpsertTables.upsert(
                this,
                ChangesPerBatch.of(changes, rowType, keyColumns, "changes-" + table),
                table,
                rowType,
                keyColumns,
                database);
    }

    /**
     * Complete output mode: the Delta table of the warehouse is replaced, whole, at each
     * micro-batch by the result so far, in one commit (Spark's complete mode into Delta). {@code
     * changes} is the aggregation's changelog by {@code keyColumns}; the last change of each key is
     * merged into the table's result ({@link CompleteCommit}).
     */
    public DataStream<Void> toCompleteTable(
            DataStream<RowData> changes, String table, RowType rowType, List<String> keyColumns) {
        DataStream<RowData> checked =
                ConstraintChecks.checkedInCompleteMode(changes, table, rowType, this);
        return ChangeSetTables.complete(
                this,
                ChangesPerBatch.of(checked, rowType, keyColumns, "changes-" + table),
                table,
                rowType,
                keyColumns);
    }

    /**
     * Upserts a stream into a Delta table of the warehouse by {@code keyColumns}, one {@code MERGE}
     * commit per micro-batch (Spark's {@code foreachBatch} + {@code MERGE INTO}): of several rows
     * of one key in a batch the last in the stream's order wins; matched rows are rewritten
     * copy-on-write, a replayed batch is skipped ({@link MergeCommit}). Read the stream with {@link
     * ReadOrder#ONE_READER} when the order of a key's rows matters.
     */
    public DataStream<Void> toMergedTable(
            DataStream<RowData> rows, String table, RowType rowType, List<String> keyColumns) {
        DataStream<RowData> checked = ConstraintChecks.checked(rows, table, rowType, this);
        return ChangeSetTables.merged(this, checked, table, rowType, keyColumns);
    }

    /**
     * Runs {@code action} before the job is submitted, once its identity is claimed and its tables
     * are created; never in a dry run ({@code run --dry-run} builds the job and prepares nothing).
     */
    public void beforeRun(Runnable action) {
        beforeRun.add(action);
    }

    /**
     * Runs {@code commit} before the job is submitted, as {@link #beforeRun} does; {@code run
     * --dry-run} lists {@code described} among what the run would do.
     *
     * <p>A commit described as one planned already is planned once (two INSERTs into one table
     * whose column is made NOT NULL plan the same commit).
     *
     * @param described the commit in one line: the table, what changes, or that nothing would
     */
    public void commitBeforeRun(String described, Runnable commit) {
        if (commitsBeforeRun.contains(described)) {
            return;
        }
        commitsBeforeRun.add(described);
        beforeRun.add(commit);
    }

    /** The commits {@link #commitBeforeRun} planned, a line each, in order. */
    List<String> commitsBeforeRun() {
        return List.copyOf(commitsBeforeRun);
    }

    /**
     * The {@code CHECK} constraints (name to expression) that table {@code table} will have when
     * the job runs, once the query's own constraint changes are committed before the run ({@code
     * ALTER TABLE ... ADD|DROP CONSTRAINT} in a SQL file): its writers enforce these instead of the
     * ones its log holds now.
     */
    public void plannedChecks(String table, Map<String, String> checks) {
        plannedChecks.put(table, Map.copyOf(checks));
    }

    /** The table's planned {@code CHECK} constraints ({@link #plannedChecks}), if any. */
    Optional<Map<String, String>> plannedChecks(String table) {
        return Optional.ofNullable(plannedChecks.get(table));
    }

    /** Records a table's columns in the query's identity (its checkpoint keeps them). */
    void recordColumns(String table, RowType rowType) {
        tableColumns.put(table, QueryIdentity.columns(rowType));
    }

    /** How the query's identity and progress describe a sink. */
    void describeSink(String table, String description) {
        sinks.put(table, description);
    }

    /** Declares a stateful operator: it is part of the query's identity for its checkpoint. */
    public void stateful(String operatorName) {
        stateful.add(operatorName);
    }

    QueryIdentity identity() {
        List<String> outputs = new ArrayList<>(sinks.keySet());
        outputs.removeAll(skippedFilesTables);
        outputs.removeAll(expected.rejectedTables());
        List<String> records = new ArrayList<>(skippedFilesTables);
        records.addAll(expected.rejectedTables());
        return new QueryIdentity(queryName, sources, outputs, stateful, records, tableColumns)
                .growing(growing)
                .withConf(watermarkInputs.conf());
    }

    /** Refuses a {@code --watermark-policy} the query cannot apply ({@link WatermarkInputs}). */
    void checkWatermarkPolicy() {
        watermarkInputs.check();
    }

    /** Refuses the run if an expectation applied to no table ({@link ExpectationTables}). */
    void checkExpectationsApplied() {
        expected.checkApplied(queryName, tableModes);
    }

    /** Refuses the run if a Delta table read is not final up to {@code --until-final}. */
    void checkUntilFinal() {
        untilFinal.check(queryName);
    }

    /** What {@code --until-final} says of each Delta table read ({@code run --dry-run}). */
    List<UntilFinal.Finding> untilFinalFindings() {
        return untilFinal.findings(queryName);
    }

    /** The tables of {@link #toSkippedFilesTable}. */
    List<String> skippedFilesTables() {
        return skippedFilesTables;
    }

    List<String> sourceNames() {
        return sourceNames;
    }

    Map<String, String> sourceDescriptions() {
        Map<String, String> descriptions = new LinkedHashMap<>();
        for (int i = 0; i < sourceNames.size(); i++) {
            descriptions.put(sourceNames.get(i), sources.get(i));
        }
        return descriptions;
    }

    Map<String, String> sinkDescriptions() {
        return sinks;
    }

    List<String> tables() {
        return tables;
    }

    /**
     * What {@link #prepare} would refuse, reading only ({@code run --dry-run}): each table another
     * query or checkpoint writes. Before the first run the checkpoint has no id yet; the run would
     * claim a new one, which no existing table records.
     */
    List<String> tableRefusals() {
        String queryId;
        try {
            // No metadata.json yet: the first run, which claims a new id.
            queryId =
                    CheckpointMetadata.read(scope.layout())
                            .map(CheckpointMetadata::queryId)
                            .filter(id -> !id.isEmpty())
                            .orElse(null);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot read the query id of checkpoint "
                            + scope.layout()
                            + ": "
                            + e.getMessage(),
                    e);
        }
        TableOwner owner = TableOwner.ofCheckpoint(queryName, queryId, scope.layout(), warehouse);
        List<String> refusals = new ArrayList<>();
        for (String table : tables) {
            warehouse.ownershipRefusal(table, owner).ifPresent(refusals::add);
        }
        return refusals;
    }

    /**
     * Before the job is submitted, once the checkpoint's identity is claimed: every table is
     * created, or checked to be this query's (its checkpoint's id) with these columns and mode; a
     * table of the SQL database is claimed for this checkpoint ({@link SqlTableOwners}).
     */
    void prepare() {
        if (!tables.isEmpty()) {
            String queryId = QueryIdentity.idIn(scope.layout());
            TableOwner owner =
                    TableOwner.ofCheckpoint(queryName, queryId, scope.layout(), warehouse);
            for (String table : tables) {
                try {
                    if (growing.contains(table)) {
                        warehouse.ownGrowing(
                                table, tableRows.get(table), owner, tableModes.get(table));
                    } else {
                        warehouse.own(table, tableRows.get(table), owner, tableModes.get(table));
                    }
                } catch (IllegalStateException e) {
                    throw new QueryException(e.getMessage(), e);
                }
            }
        }
        beforeRun.forEach(Runnable::run);
    }
}
