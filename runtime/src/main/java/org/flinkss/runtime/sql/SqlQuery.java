package org.flinkss.runtime.sql;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.streaming.api.transformations.PhysicalTransformation;
import org.apache.flink.table.api.bridge.java.StreamStatementSet;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.internal.TableEnvironmentInternal;
import org.apache.flink.table.operations.Operation;
import org.apache.flink.table.operations.SinkModifyOperation;
import org.apache.flink.table.operations.command.ResetOperation;
import org.apache.flink.table.operations.command.SetOperation;
import org.apache.flink.table.operations.ddl.CreateTableOperation;
import org.apache.flink.table.operations.ddl.CreateViewOperation;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.sink.kafka.KafkaSinks;
import org.flinkss.runtime.storage.Storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A SQL file as a query: its {@code CREATE TEMPORARY TABLE}/{@code VIEW} and {@code SET} statements
 * run in order ({@code ALTER TABLE ... ADD|DROP CONSTRAINT} on a Delta table: {@link
 * SqlConstraints}), and its {@code INSERT INTO} statements are planned together, one statement set
 * attached to the query's environment ({@code attachAsDataStream}), so they run in micro-batches
 * like every other query: one checkpoint, the same progress, the same commits.
 *
 * <p>The tables are the project's connectors ({@code 'delta'}, {@code 'landing-files'}); a {@code
 * WATERMARK} clause on a source is Spark's {@code withWatermark}. The query's identity for its
 * checkpoint is the plan's stateful operators and its watermarks ({@link PlanShape}): a changed
 * filter or projection runs on the checkpoint; a changed aggregation, grouping key, window or
 * watermark is refused, naming what changed ({@link SqlChanges}). Anything in the file that cannot
 * run is refused before any data moves, in one line naming the file, the statement and its line
 * ({@link SqlFileException}).
 */
public final class SqlQuery implements Query {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]*");

    private final SqlScript script;
    private final String name;

    private SqlQuery(SqlScript script, String name) {
        this.script = script;
        this.name = name;
    }

    /**
     * The query of a SQL file, named {@code name}, or after the file without its extension. The
     * file is a local script the user wrote, read once ({@code java.nio}), not a storage location.
     *
     * @throws SqlFileException if the file cannot be read, has no statement, or the name is not a
     *     plain name
     */
    public static SqlQuery of(Path file, String name) {
        String queryName = name != null ? name : defaultName(file);
        if (!NAME.matcher(queryName).matches() || queryName.contains("..")) {
            throw new SqlFileException(
                    file
                            + ": '"
                            + queryName
                            + "' cannot name a query (its checkpoint is <base>/_cp/<name>): give"
                            + " --name with letters, digits, '_', '-' or '.'");
        }
        return new SqlQuery(SqlScript.read(file), queryName);
    }

    /** The file's name without its extension: {@code win5.sql} is the query {@code win5}. */
    public static String defaultName(Path file) {
        String fileName = file.getFileName().toString();
        int dot = fileName.lastIndexOf('.');
        return dot > 0 ? fileName.substring(0, dot) : fileName;
    }

    /**
     * One run of the query, as {@link QueryRunner#run} runs any query; a file refused before any
     * data moved ({@link SqlFileException}) leaves no checkpoint behind for a query that had none
     * (the run's lock and fence go with its folder).
     */
    public QueryRunner.Result run(RunOptions options) {
        CheckpointLayout checkpoint = options.checkpointOf(name);
        boolean fresh = !exists(checkpoint);
        try {
            return QueryRunner.run(this, options);
        } catch (SqlFileException e) {
            if (fresh) {
                try {
                    Storage.deleteTree(checkpoint.location());
                } catch (IOException cleanup) {
                    e.addSuppressed(cleanup);
                }
            }
            throw e;
        }
    }

    private static boolean exists(CheckpointLayout checkpoint) {
        try {
            return Storage.exists(checkpoint.location());
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot read " + checkpoint.location() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String name() {
        return name;
    }

    public Path file() {
        return script.file();
    }

    @Override
    public void build(QueryContext context) {
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(context.env());
        // Our micro-batch connectors before Flink's factories of the same name ('kafka').
        tEnv.loadModule(
                SqlConnectorModule.NAME,
                SqlConnectorModule.discover(
                        Thread.currentThread().getContextClassLoader(),
                        KafkaSinks.transactionalIdPrefix(name, context.scope())));
        // Timestamps in UTC whatever the machine's zone, as Spark's session time zone here.
        tEnv.getConfig().setLocalTimeZone(ZoneOffset.UTC);
        // One plan whatever the data: aggregations in two phases always, and no materializer
        // before a sink (the Delta sinks apply each batch's changes themselves).
        tEnv.getConfig().set("table.optimizer.agg-phase-strategy", "TWO_PHASE");
        tEnv.getConfig().set("table.exec.sink.upsert-materialize", "NONE");
        SqlErrors errors = new SqlErrors(script.file());
        try (SqlSession session = SqlSession.open(context, script.file())) {
            StreamStatementSet inserts = tEnv.createStatementSet();
            Map<String, SqlStatement> writers = new LinkedHashMap<>();
            Map<String, SqlStatement> definitions = new HashMap<>();
            Map<String, SqlWatermark> watermarks = new HashMap<>();
            SqlConstraints constraints = new SqlConstraints(context, errors);
            for (SqlStatement statement : script.statements()) {
                Optional<SqlConstraintStatement> alter =
                        SqlConstraintStatement.parse(statement.text());
                if (alter.isPresent()) {
                    constraints.alter(statement, alter.get());
                    continue;
                }
                Operation operation =
                        errors.run(statement, definitions, () -> parse(tEnv, statement));
                if (operation instanceof SinkModifyOperation insert) {
                    writers.put(
                            insert.getContextResolvedTable().getIdentifier().getObjectName(),
                            statement);
                    errors.run(
                            statement,
                            definitions,
                            () -> {
                                inserts.addInsertSql(statement.text());
                                return null;
                            });
                } else if (operation instanceof CreateTableOperation create) {
                    String table = create.getTableIdentifier().getObjectName();
                    definitions.put(table, statement);
                    constraints.created(table, create.getCatalogTable().getOptions());
                    errors.run(
                            statement,
                            definitions,
                            () -> {
                                tEnv.executeSql(statement.text());
                                SqlWatermark.of(
                                                table,
                                                tEnv.from("`" + table + "`").getResolvedSchema())
                                        .ifPresent(w -> watermarks.put(table, w));
                                return null;
                            });
                } else if (operation instanceof CreateViewOperation
                        || operation instanceof SetOperation
                        || operation instanceof ResetOperation) {
                    errors.run(
                            statement,
                            definitions,
                            () -> {
                                tEnv.executeSql(statement.text());
                                return null;
                            });
                } else {
                    throw errors.at(
                            statement,
                            "a SQL file runs CREATE [TEMPORARY] TABLE, CREATE [TEMPORARY] VIEW,"
                                + " SET, INSERT INTO and ALTER TABLE ... ADD CONSTRAINT name CHECK"
                                + " (expr) | DROP CONSTRAINT [IF EXISTS] name statements only");
                }
            }
            if (writers.isEmpty()) {
                throw new SqlFileException(
                        script.file()
                                + ": no INSERT INTO statement: a query writes at least one table");
            }
            String plan =
                    errors.runAll(writers, definitions, () -> inserts.compilePlan().asJsonString());
            PlanShape shape = PlanShape.of(plan);
            session.shape(shape);
            List<String> stateful = SqlChanges.identity(shape, watermarks);
            SqlChanges.refuseChangedState(context, script.file(), stateful);
            stateful.forEach(context::stateful);
            errors.runAll(
                    writers,
                    definitions,
                    () -> {
                        inserts.attachAsDataStream();
                        return null;
                    });
            stableUids(context.env().getTransformations());
        }
    }

    private static Operation parse(StreamTableEnvironment tEnv, SqlStatement statement) {
        List<Operation> operations =
                ((TableEnvironmentInternal) tEnv).getParser().parse(statement.text());
        return operations.get(0);
    }

    /**
     * A uid for every operator the planner made: its kind and its rank among operators of that
     * kind, so that a later run's job maps each stateful operator's state back (the planner gives
     * none, and Flink's generated ones move when an operator is added before them, such as a
     * filter). The identity check has made sure the stateful operators are the same, in the same
     * order.
     */
    private static void stableUids(List<Transformation<?>> transformations) {
        Map<String, Integer> ranks = new HashMap<>();
        Set<Transformation<?>> seen = new HashSet<>();
        for (Transformation<?> t : transformations) {
            assignUids(t, ranks, seen);
        }
    }

    private static void assignUids(
            Transformation<?> t, Map<String, Integer> ranks, Set<Transformation<?>> seen) {
        if (!seen.add(t)) {
            return;
        }
        for (Transformation<?> input : t.getInputs()) {
            assignUids(input, ranks, seen);
        }
        if (t.getUid() == null && t instanceof PhysicalTransformation) {
            String kind = t.getName().replaceAll("\\[\\d+]$", "").replaceAll("[^A-Za-z0-9_-]", "");
            int rank = ranks.merge(kind, 1, Integer::sum);
            t.setUid("sql-" + kind + "-" + rank);
        }
    }
}
