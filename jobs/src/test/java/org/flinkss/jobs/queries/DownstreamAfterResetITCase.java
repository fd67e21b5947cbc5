package org.flinkss.jobs.queries;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.jobs.CliOutput;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 38, point 7: after {@code reset bronze}, the next run of a query that reads {@code
 * events_bronze} as a stream cannot go on (the reset emptied the table in a commit that removes its
 * files). It used to fail after 11 restarts, 81 s and 262 lines; it fails at once, in one line that
 * says why and to reset the downstream query, and that reset is the way out.
 */
class DownstreamAfterResetITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path dir;

    private CliOutput run(String... args) {
        return CliOutput.of(
                java.util.stream.Stream.concat(
                                java.util.Arrays.stream(args),
                                java.util.stream.Stream.of("--base", dir.toString()))
                        .toArray(String[]::new));
    }

    private CliOutput ok(String... args) {
        CliOutput o = run(args);
        assertThat(o.code()).as("%s: %s%s", List.of(args), o.out(), o.err()).isZero();
        return o;
    }

    @Test
    void aQueryReadingAResetTableFailsAtOnceNamingTheWayOut() {
        ok("land-events", "--batch", "1", "--start", "0");
        ok("run", "bronze", "--quiet");
        ok("run", "win5", "--quiet");
        ok("reset", "bronze");
        ok("run", "bronze", "--quiet");

        // Step 1: win5 cannot read events_bronze further: one line, no restart.
        CliOutput refused = run("run", "win5", "--quiet");
        assertThat(refused.code()).isNotZero();
        assertThat(refused.err())
                .contains("table 'events_bronze' cannot be read further as a stream")
                .contains("Reset the query that reads it")
                .doesNotContain("restarts from its last checkpoint")
                .doesNotContain("\tat ");

        // Step 2: the way out it names: reset win5, which then reads the new bronze whole.
        ok("reset", "win5");
        assertThat(ok("run", "win5", "--quiet").out()).contains("500 rows read");
    }
}
