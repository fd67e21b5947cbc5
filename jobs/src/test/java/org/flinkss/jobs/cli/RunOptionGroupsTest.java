package org.flinkss.jobs.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

import org.flinkss.jobs.cli.options.RunOptionGroups;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.time.WatermarkPolicy;

import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code run} and {@code sql} build a run's options in one place ({@link RunOptionGroups}): the
 * options they share mean the same to both, and {@code sql} takes no option of its own but its file
 * and name. Nothing runs: the commands' options are only parsed.
 */
class RunOptionGroupsTest {

    @TempDir Path base;

    private static Set<String> optionNames(Object command) {
        Set<String> names = new TreeSet<>();
        for (OptionSpec option : new CommandLine(command).getCommandSpec().options()) {
            names.add(option.longestName());
        }
        return names;
    }

    @Test
    void everyOptionOfSqlButItsFileAndNameIsAnOptionOfRun() {
        Set<String> sqlOnly = optionNames(new SqlCommand());
        sqlOnly.removeAll(optionNames(new RunCommand()));
        assertThat(sqlOnly).containsExactlyInAnyOrder("--file", "--name");
    }

    @Test
    void theSameArgumentsGiveRunAndSqlTheSameRunOptions() {
        String[] shared = {
            "--base",
            base.toString(),
            "--warehouse",
            base.resolve("tables").toString(),
            "--trigger",
            "processing-time=5s",
            "--max-files-per-trigger",
            "3",
            "--parallelism",
            "3",
            "--checkpoint-interval",
            "7s",
            "-D",
            "pipeline.name=same",
            "--quiet",
            "--expect",
            "positive_amount:amount >= 0:drop",
            "--expect",
            "events_bronze.known_type:event_type IN ('view', 'click', 'buy'):fail",
            "--watermark-policy",
            "max"
        };
        RunCommand run = new RunCommand();
        new CommandLine(run).parseArgs(concat(shared, "--jar", "q.jar", "--class", "com.acme.Q"));
        SqlCommand sql = new SqlCommand();
        new CommandLine(sql).parseArgs(concat(shared, "--file", "q.sql"));

        RunOptions fromRun =
                RunOptionGroups.assemble(
                                run.data,
                                run.trigger,
                                run.limits,
                                run.parallelism,
                                run.checkpointInterval,
                                run.progress,
                                run.flink,
                                run.expect,
                                run.watermarkPolicy)
                        .build();
        RunOptions fromSql =
                RunOptionGroups.assemble(
                                sql.data,
                                sql.trigger,
                                sql.limits,
                                sql.parallelism,
                                sql.checkpointInterval,
                                sql.progress,
                                sql.flink,
                                sql.expect,
                                sql.watermarkPolicy)
                        .build();

        assertThat(fromSql.base()).isEqualTo(fromRun.base());
        assertThat(fromSql.warehouse()).isEqualTo(fromRun.warehouse());
        assertThat(fromRun.warehouse().getName()).isEqualTo("tables");
        assertThat(fromSql.trigger()).hasToString(fromRun.trigger().toString());
        assertThat(fromRun.trigger()).hasToString("processing-time=5000ms");
        assertThat(fromSql.readLimit()).isEqualTo(fromRun.readLimit());
        assertThat(fromRun.readLimit().maxUnits()).isEqualTo(3);
        assertThat(fromSql.expectations()).isEqualTo(fromRun.expectations());
        assertThat(fromSql.watermarkPolicy()).isEqualTo(fromRun.watermarkPolicy());
        assertThat(fromRun.watermarkPolicy()).isEqualTo(WatermarkPolicy.MAX);
        assertThat(fromRun.expectations())
                .extracting(Object::toString)
                .containsExactly(
                        "positive_amount:amount >= 0:drop",
                        "events_bronze.known_type:event_type IN ('view', 'click', 'buy'):fail");
    }

    private static String[] concat(String[] first, String... more) {
        String[] all = new String[first.length + more.length];
        System.arraycopy(first, 0, all, 0, first.length);
        System.arraycopy(more, 0, all, first.length, more.length);
        return all;
    }
}
