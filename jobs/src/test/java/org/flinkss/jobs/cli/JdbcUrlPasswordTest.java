package org.flinkss.jobs.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.jobs.CliOutput;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A password in {@code --jdbc-url} (issue 38 point 9): the command warns in one line on stderr,
 * naming the environment variable to use, and never prints the password, whatever else it says.
 */
class JdbcUrlPasswordTest {

    @TempDir Path dir;

    /** {@code table count events_latest} in the database of {@code jdbcUrl}. */
    private CliOutput countWith(String jdbcUrl) {
        return CliOutput.of(
                "table", "count", "events_latest", "--base", dir.toString(), "--jdbc-url", jdbcUrl);
    }

    @Test
    void aPasswordInTheJdbcUrlIsWarnedAboutOnceAndNeverPrinted() {
        // No server listens on port 1: the command fails after the warning, and its error names
        // the database without the password either.
        CliOutput o = countWith("jdbc:postgresql://127.0.0.1:1/shop?user=app&password=s3cret");

        assertThat(o.err().lines().filter(l -> l.contains("carries a password")))
                .singleElement()
                .asString()
                .startsWith("warning: --jdbc-url jdbc:postgresql://127.0.0.1:1/shop?user=***")
                .contains("FLINKSS_JDBC_PASSWORD");
        assertThat(o.out() + o.err()).doesNotContain("s3cret");
    }

    @Test
    void aJdbcUrlWithoutAPasswordGivesNoWarning() {
        CliOutput o = countWith("jdbc:sqlite:" + dir.resolve("db.sqlite"));
        assertThat(o.err()).doesNotContain("carries a password");
    }
}
