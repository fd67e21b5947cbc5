package org.flinkss.jobs.cli.options;

import org.junit.jupiter.api.Test;

import org.flinkss.jobs.CliOutput;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code run} takes a query of the course or {@code --jar} with {@code --class}: exactly one. */
class RunTargetTest {

    private static void refused(String message, String... args) {
        CliOutput out = CliOutput.of(args);
        assertThat(out.code()).as(out.err()).isEqualTo(2);
        assertThat(out.err().strip().lines()).hasSize(1);
        assertThat(out.err()).startsWith("error: ").contains(message);
    }

    @Test
    void runWithoutAQueryNamesBothWaysToGiveOne() {
        refused(
                "Missing required parameter: 'QUERY' (or --jar JAR --class CLASS",
                "run",
                "--base",
                "/nowhere");
    }

    @Test
    void aQueryOfTheCourseAndAJarAreNotBothGiven() {
        refused("not both", "run", "bronze", "--jar", "q.jar", "--class", "com.acme.Q");
    }

    @Test
    void jarAndClassGoTogether() {
        refused("--jar q.jar needs --class", "run", "--jar", "q.jar");
        refused("--class com.acme.Q needs --jar", "run", "--class", "com.acme.Q");
    }

    @Test
    void anOptionOfTheCourseQueriesIsRefusedWithAJarNotIgnored() {
        for (String[] option :
                new String[][] {
                    {"--api", "table"},
                    {"--output-mode", "update"},
                    {"--rescued-data"},
                    {"--outer"},
                    {"--subscribe", "events"},
                    {"--bootstrap-servers", "localhost:9092"}
                }) {
            String[] args = new String[5 + option.length];
            System.arraycopy(
                    new String[] {"run", "--jar", "q.jar", "--class", "com.acme.Q"}, 0, args, 0, 5);
            System.arraycopy(option, 0, args, 5, option.length);
            refused(option[0] + " is an option of the course's queries", args);
        }
    }
}
