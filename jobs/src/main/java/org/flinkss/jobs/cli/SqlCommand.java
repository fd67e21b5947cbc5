package org.flinkss.jobs.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import org.flinkss.jobs.cli.options.BaseFolder;
import org.flinkss.jobs.cli.options.CheckpointIntervalOption;
import org.flinkss.jobs.cli.options.DataOptions;
import org.flinkss.jobs.cli.options.ExpectOption;
import org.flinkss.jobs.cli.options.FlinkOptions;
import org.flinkss.jobs.cli.options.ParallelismOption;
import org.flinkss.jobs.cli.options.ProgressOptions;
import org.flinkss.jobs.cli.options.RateLimitOptions;
import org.flinkss.jobs.cli.options.RunOptionGroups;
import org.flinkss.jobs.cli.options.TriggerOptions;
import org.flinkss.jobs.cli.options.WatermarkPolicyOption;
import org.flinkss.jobs.cli.output.RunSummary;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.sql.SqlFileException;
import org.flinkss.runtime.sql.SqlQuery;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * One run of the user's own query, a Flink SQL file, through the same runner as {@code run}: its
 * trigger, checkpoint {@code <base>/_cp/<name>}, lock, progress and exit codes (docs/sql.md). A
 * file that cannot run is refused in one line naming the file, the statement and its line, with
 * exit code 2, and leaves nothing behind: no table, and no checkpoint for a query that had none.
 */
@Command(
        name = "sql",
        mixinStandardHelpOptions = true,
        description =
                "One run of your own query, a Flink SQL file (CREATE TEMPORARY TABLE/VIEW, SET,"
                        + " INSERT INTO), with its trigger (default available-now: process what is"
                        + " there, commit, stop). Tables: 'connector' = 'delta' (docs/sql.md).")
public final class SqlCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Mixin DataOptions data;

    @Option(
            names = "--file",
            required = true,
            paramLabel = "FILE.sql",
            description = "the SQL file: its statements are one query")
    // A local file the user wrote, read once (errors name it by line): not a storage location.
    Path file;

    @Option(
            names = "--name",
            paramLabel = "NAME",
            description =
                    "the query's name, its checkpoint <base>/_cp/<NAME> (default: the file's name"
                            + " without its extension)")
    String name;

    @Mixin TriggerOptions trigger;
    @Mixin RateLimitOptions limits;
    @Mixin ParallelismOption parallelism;
    @Mixin CheckpointIntervalOption checkpointInterval;

    @Option(
            names = "--dry-run",
            description =
                    "Say what the run would do, and run nothing (as run --dry-run): the restore"
                            + " point, whether the checkpoint serves this query, what each source"
                            + " would read next, the state kept or refused. Writes nothing; exit 0")
    boolean dryRun;

    @Mixin ProgressOptions progress;
    @Mixin FlinkOptions flink;
    @Mixin ExpectOption expect;
    @Mixin WatermarkPolicyOption watermarkPolicy;

    @Override
    public Integer call() {
        data.refuseJdbcUrl("sql --file"); // a SQL file's connectors are Delta, files and Kafka
        RunOptions run =
                RunOptionGroups.assemble(
                                data,
                                trigger,
                                limits,
                                parallelism,
                                checkpointInterval,
                                progress,
                                flink,
                                expect,
                                watermarkPolicy)
                        .build();
        // As run: the base must exist (a SQL file's sources name their own folders).
        BaseFolder.requireForRun(data, false);
        SqlQuery query;
        try {
            query = SqlQuery.of(file, name);
        } catch (SqlFileException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        try {
            if (dryRun) {
                QueryRunner.dryRun(query, run).lines().forEach(System.out::println);
                return 0;
            }
            QueryRunner.Result result = query.run(run);
            System.out.println(RunSummary.of(query.name(), result));
            return 0;
        } catch (SqlFileException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
