package org.flinkss.jobs.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.jobs.Main;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the command line prints is UTF-8 whatever the platform's charset: under a C or POSIX locale
 * Java's standard output is US-ASCII, and text such as {@code vüé 漢字} came out as {@code v?? ??}.
 * Here standard output is a US-ASCII stream, as it is under such a locale.
 */
class OutputCharsetTest {

    @TempDir Path base;

    private static final String TEXT = "vüé 漢字";

    /** Runs a command with an ASCII standard output; what it wrote, read as UTF-8. */
    private static String printed(String... args) {
        PrintStream original = System.out;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int code;
        try {
            System.setOut(new PrintStream(bytes, true, StandardCharsets.US_ASCII));
            code = Main.execute(args);
        } finally {
            System.setOut(original);
        }
        assertThat(code).isZero();
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void tableShowAndExportPrintUtf8() {
        assertThat(printed("land-customers", "--countries", TEXT, "--base", base.toString()))
                .isNotEmpty();

        assertThat(printed("table", "export", "customers", "--csv", "--base", base.toString()))
                .startsWith("customer_id,country\n")
                .contains("1," + TEXT + "\n");
        assertThat(printed("table", "show", "customers", "--base", base.toString()))
                .contains("| " + TEXT);
    }

    @Test
    void anErrorNamingATableIsUtf8() {
        PrintStream original = System.err;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int code;
        try {
            System.setErr(new PrintStream(bytes, true, StandardCharsets.US_ASCII));
            code = Main.execute("table", "count", "tätä_漢字", "--base", base.toString());
        } finally {
            System.setErr(original);
        }
        assertThat(code).isEqualTo(1);
        assertThat(bytes.toString(StandardCharsets.UTF_8)).contains("'tätä_漢字'");
    }
}
