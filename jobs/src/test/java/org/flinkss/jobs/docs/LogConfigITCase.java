package org.flinkss.jobs.docs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.jobs.CliOutput;
import org.flinkss.testutils.ProjectScripts;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The logging section of docs/command-line.md, run (issue 32): its block is a {@code sample}
 * because it needs a log4j2 file of the reader's, so this test writes one and runs each of the
 * block's three lines as they are, in bash, as whole processes (a logging configuration is read
 * when the JVM starts: it cannot be tested inside this one). Each line's output must carry the
 * file's own pattern: the file was used, not the jar's. The page's other two claims are checked
 * beside them: the JVM option wins over {@code FLINKSS_LOG_CONFIG}, and {@code -D log4j2...} after
 * the command is refused with the advice.
 */
class LogConfigITCase {

    private static final String MARKER = "my-log4j2";

    @TempDir Path work;

    @Test
    void eachDocumentedWayToGiveAFileOfYourOwnUsesIt() throws Exception {
        List<String> lines = documentedLines();
        assertThat(lines).as("the three ways the page shows").hasSize(3);
        prepare();

        for (String line : lines) {
            Run run = bash(line, Map.of());
            assertThat(run.exit).as("%s\n%s", line, run.tail()).isZero();
            assertThat(run.output)
                    .as("%s logs through my-log4j2.properties\n%s", line, run.tail())
                    .contains(MARKER + " INFO ");
        }
    }

    @Test
    void theJvmOptionWinsOverTheEnvironmentVariable() throws Exception {
        prepare();
        Files.writeString(work.resolve("other.properties"), config("other-log4j2"));

        Run run =
                bash(
                        "scripts/flinkss run bronze",
                        Map.of(
                                "FLINKSS_LOG_CONFIG", "other.properties",
                                "JAVA_OPTS", "-Dlog4j2.configurationFile=my-log4j2.properties"));

        assertThat(run.exit).as(run.tail()).isZero();
        assertThat(run.output)
                .as(run.tail())
                .contains(MARKER + " INFO ")
                .doesNotContain("other-log4j2");
    }

    @Test
    void aLog4jOptionAfterTheCommandIsRefusedWithTheAdvice() {
        CliOutput o =
                CliOutput.of(
                        "run",
                        "bronze",
                        "-D",
                        "log4j2.configurationFile=my-log4j2.properties",
                        "--base",
                        work.resolve("data").toString());

        assertThat(o.code()).as(o.err()).isEqualTo(2);
        assertThat(o.err())
                .contains("-D log4j2.configurationFile after the command is a Flink option")
                .contains("FLINKSS_LOG_CONFIG=FILE");
        assertThat(work.resolve("data/_cp")).doesNotExist();
    }

    /** The block of the page's Logging section, its lines as a reader would type them. */
    private static List<String> documentedLines() {
        Path page = ProjectScripts.ROOT.resolve("docs/command-line.md");
        return DocBlocks.blocks(page).stream()
                .filter(b -> b.kind() == DocBlocks.Kind.SAMPLE)
                .filter(b -> b.lines().stream().anyMatch(l -> l.contains("my-log4j2.properties")))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no logging block in " + page))
                .lines()
                .stream()
                .filter(l -> !l.isBlank())
                .toList();
    }

    /**
     * A working folder as the page's reader has it: the repository's {@code jobs/} and {@code
     * scripts/}, a file of their own, and 500 landed events in the default base {@code data}.
     */
    private void prepare() throws Exception {
        Files.createSymbolicLink(work.resolve("jobs"), ProjectScripts.ROOT.resolve("jobs"));
        Files.createSymbolicLink(work.resolve("scripts"), ProjectScripts.ROOT.resolve("scripts"));
        Files.writeString(work.resolve("my-log4j2.properties"), config(MARKER));
        CliOutput landed =
                CliOutput.of(
                        "land-events",
                        "--batch",
                        "1",
                        "--start",
                        "0",
                        "--base",
                        work.resolve("data").toString());
        assertThat(landed.code()).as(landed.err()).isZero();
    }

    /** A log4j2 file that logs INFO on stderr, each line starting with {@code name}. */
    private static String config(String name) {
        return String.join(
                "\n",
                "rootLogger.level = INFO",
                "rootLogger.appenderRef.err.ref = err",
                "appender.err.type = Console",
                "appender.err.name = err",
                "appender.err.target = SYSTEM_ERR",
                "appender.err.layout.type = PatternLayout",
                "appender.err.layout.pattern = " + name + " %p %c{1} - %m%n",
                "");
    }

    private Run bash(String line, Map<String, String> environment) throws Exception {
        ProcessBuilder builder =
                new ProcessBuilder("bash", "-euo", "pipefail", "-c", line)
                        .directory(work.toFile())
                        .redirectErrorStream(true);
        builder.environment().remove("FLINKSS_LOG_CONFIG");
        builder.environment().remove("JAVA_OPTS");
        builder.environment().putAll(environment);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), UTF_8);
        assertThat(process.waitFor(3, TimeUnit.MINUTES)).as(line).isTrue();
        return new Run(process.exitValue(), output);
    }

    private record Run(int exit, String output) {
        String tail() {
            return output.length() <= 3000
                    ? output
                    : "..." + output.substring(output.length() - 3000);
        }
    }
}
