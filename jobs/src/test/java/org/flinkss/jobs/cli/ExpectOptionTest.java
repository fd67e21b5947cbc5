package org.flinkss.jobs.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.jobs.Main;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code --expect} on the command line: its help, and the refusals that need no Flink. */
class ExpectOptionTest {

    @TempDir Path base;

    private record Outcome(int code, String out, String err) {}

    private static Outcome execute(String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
        try {
            int code = Main.execute(args);
            return new Outcome(
                    code, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }

    @Test
    void runAndSqlHelpDescribeTheOption() {
        for (String command : new String[] {"run", "sql"}) {
            Outcome help = execute(command, "--help");
            assertThat(help.code()).isZero();
            assertThat(help.out())
                    .contains("--expect=NAME:EXPR:ACTION")
                    .contains("<table>_rejected");
        }
    }

    @Test
    void aRuleWithoutAnActionIsRefusedNamingTheFormBeforeAnythingRuns() {
        Outcome refused =
                execute("run", "bronze", "--base", base.toString(), "--expect", "x:amount > 0");

        assertThat(refused.code()).isEqualTo(2);
        assertThat(refused.err())
                .contains("Invalid value for option '--expect'")
                .contains("expectation 'x:amount > 0' is not NAME:EXPR:ACTION");
    }

    @Test
    void thePipelineRefusesRulesThatWouldReachThreeQueries() {
        Outcome refused =
                execute(
                        "run",
                        "pipeline",
                        "--base",
                        base.toString(),
                        "--expect",
                        "positive_amount:amount >= 0:drop");

        // A usage error, before the landing folder is looked for.
        assertThat(refused.code()).as(refused.err()).isEqualTo(2);
        assertThat(refused.err())
                .contains(
                        "--expect is for one query: run [bronze, silver, gold] one by one with"
                                + " their own rules");
    }
}
