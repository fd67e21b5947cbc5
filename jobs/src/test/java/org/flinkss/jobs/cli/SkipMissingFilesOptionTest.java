package org.flinkss.jobs.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.jobs.Main;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class SkipMissingFilesOptionTest {

    @TempDir Path base;

    @Test
    void queriesThatReadNoLandingFilesRefuseTheFlagBeforeAnythingRuns() {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        int code;
        try {
            code = Main.execute("run", "win5", "--skip-missing-files", "--base", base.toString());
        } finally {
            System.setErr(err);
        }

        assertThat(code).isEqualTo(1);
        assertThat(captured.toString(StandardCharsets.UTF_8))
                .contains(
                        "error: --skip-missing-files is an option of the queries that read landing"
                                + " files (bronze, pipeline), not of 'win5'");
    }
}
