package org.flinkss.jobs.docs;

import org.apache.flink.test.junit5.MiniClusterExtension;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.jobs.CliOutput;
import org.flinkss.jobs.Main;
import org.flinkss.testutils.MiniClusters;
import org.flinkss.testutils.ProjectScripts;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The documentation's commands run (issue 14, point 15; issue 32): every {@code run} block of the
 * README and of {@code docs/*.md} ({@link DocBlocks}), page by page in reading order, each page on
 * a fresh base of its own, every command in order, each exiting 0. A command of the jar runs in
 * this JVM ({@link Main#execute}, as {@code java -jar} runs it); any other line (making a folder,
 * writing a file) runs in bash, in a working folder where the default base {@code data} is the
 * page's base ({@link DocCommands}).
 *
 * <p>How each command of the jar is adapted, and nothing else:
 *
 * <ul>
 *   <li>{@code --base <the page's base>} is appended (the pages use the default base {@code data});
 *       {@code demo} and {@code bench}, which work in folders of their own, get a fresh one each.
 *   <li>{@code --run-for <any>} becomes {@code --run-for 3s}: the processing-time run needs no more
 *       to show that the checkpoint takes it.
 *   <li>{@code --jdbc-url jdbc:postgresql://...} names a PostgreSQL server started here (as {@code
 *       LatestITCase} does), its user in the URL: there is no server at the page's address.
 *   <li>{@code --file <relative path>} is resolved in the page's working folder, where the page's
 *       shell lines write files and {@code examples/} is the repository's.
 *   <li>{@code demo} runs {@code --topic 11.03} (landing and bronze, compared with the course): the
 *       whole walkthrough takes about 30 s alone.
 *   <li>{@code bench ... --events N} runs 2,000 events instead of a million.
 * </ul>
 *
 * No command is skipped. A command that reads or writes Kafka, S3 or a cluster belongs in a {@code
 * ports} block ({@link DocPortsCommandsITCase}). A command whose comment is a number alone ({@code
 * # 1000}) must print that number last.
 */
class ReadmeCommandsITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    /**
     * The run blocks had about 60 commands of the jar when this test was written (41 in the
     * README's one block before the manual); far fewer means a bad parse.
     */
    static final int AT_LEAST = 50;

    private static EmbeddedPostgres postgres;

    @TempDir Path dir;

    @AfterAll
    static void stopPostgres() throws IOException {
        if (postgres != null) {
            postgres.close();
        }
    }

    @Test
    void theDocumentedCommandsRunPageByPageEachOnAFreshBase() throws Exception {
        Map<Path, List<DocCommands.Command>> pages = new LinkedHashMap<>();
        for (DocBlocks.Block block : DocBlocks.all(DocBlocks.Kind.RUN)) {
            pages.computeIfAbsent(block.page(), p -> new ArrayList<>())
                    .addAll(DocCommands.of(block));
        }
        assertThat(pages.values().stream().flatMap(List::stream))
                .as("commands of the jar in the run blocks")
                .filteredOn(c -> c instanceof DocCommands.Jar)
                .hasSizeGreaterThanOrEqualTo(AT_LEAST);
        Map<String, Integer> adapted = new LinkedHashMap<>();
        for (String adaptation :
                List.of("--run-for", "--jdbc-url postgresql", "--file", "demo", "bench")) {
            adapted.put(adaptation, 0);
        }

        int n = 0;
        int pageNumber = 0;
        for (Map.Entry<Path, List<DocCommands.Command>> page : pages.entrySet()) {
            // Each page starts from nothing, as a reader of that page would.
            Path work =
                    dir.resolve(
                            String.format("%02d-%s", ++pageNumber, page.getKey().getFileName()));
            Path base = work.resolve("data");
            Files.createDirectories(work);
            // The pages name the repository's examples from its root, as a reader runs them.
            Files.createSymbolicLink(
                    work.resolve("examples"), ProjectScripts.ROOT.resolve("examples"));
            for (DocCommands.Command command : page.getValue()) {
                n++;
                long started = System.nanoTime();
                if (command instanceof DocCommands.Shell shell) {
                    runShell(shell, work);
                    continue;
                }
                DocCommands.Jar line = (DocCommands.Jar) command;
                List<String> args =
                        adapt(line.args(), work, base, dir.resolve("own-" + n), adapted);
                CliOutput o = CliOutput.of(args.toArray(String[]::new));
                System.out.printf(
                        "%s (%.1f s): %s%n",
                        line.where(), (System.nanoTime() - started) / 1e9, args);
                assertThat(o.code())
                        .as(
                                "%s: %s\nran as %s\nstdout:\n%s\nstderr:\n%s",
                                line.where(), line.text(), args, tail(o.out()), tail(o.err()))
                        .isZero();
                if (line.comment().matches("\\d+")) {
                    assertThat(o.out().strip())
                            .as(line.where() + ": " + line.text())
                            .endsWith(line.comment());
                }
                if (line.args().get(0).equals("recompute")) {
                    // The block runs win5 in update mode before it: its windows are in the Delta
                    // table it MERGEs into, and the recompute rebuilds them there.
                    assertThat(o.out())
                            .as(line.where() + ": " + line.text())
                            .contains("events_5min: replaced")
                            .doesNotContain("SQL database");
                }
            }
        }
        assertThat(adapted)
                .as("each adaptation this test makes still has a documented command to adapt")
                .allSatisfy((what, times) -> assertThat(times).as(what).isPositive());
    }

    /** A shell line of a page, in bash, in the page's working folder; it must exit 0. */
    private static void runShell(DocCommands.Shell shell, Path work) throws Exception {
        Process process =
                new ProcessBuilder("bash", "-euo", "pipefail", "-c", shell.text())
                        .directory(work.toFile())
                        .redirectErrorStream(true)
                        .start();
        String output = new String(process.getInputStream().readAllBytes(), UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as(shell.where()).isTrue();
        System.out.printf("%s (shell): %s%n", shell.where(), shell.text());
        assertThat(process.exitValue())
                .as("%s: %s\noutput:\n%s", shell.where(), shell.text(), tail(output))
                .isZero();
    }

    private static String tail(String text) {
        return text.length() <= 4000 ? text : "..." + text.substring(text.length() - 4000);
    }

    /** The arguments this test runs for a documented command (see the class comment). */
    private static List<String> adapt(
            List<String> readme, Path work, Path base, Path ownFolder, Map<String, Integer> adapted)
            throws Exception {
        List<String> args = new ArrayList<>(readme);
        if (args.contains("--base") || args.contains("--warehouse")) {
            fail("%s names its own --base or --warehouse: adapt this test to it", readme);
        }
        String command = args.get(0);
        for (int i = 0; i < args.size() - 1; i++) {
            String option = args.get(i);
            if (option.equals("--run-for")) {
                args.set(i + 1, "3s");
                adapted.merge("--run-for", 1, Integer::sum);
            } else if (option.equals("--jdbc-url")
                    && args.get(i + 1).startsWith("jdbc:postgresql:")) {
                args.set(i + 1, postgresUrl());
                adapted.merge("--jdbc-url postgresql", 1, Integer::sum);
            } else if (option.equals("--file") && !Path.of(args.get(i + 1)).isAbsolute()) {
                // The page's working folder is where a reader's relative paths start.
                args.set(i + 1, work.resolve(args.get(i + 1)).toString());
                adapted.merge("--file", 1, Integer::sum);
            } else if (command.equals("bench") && option.equals("--events")) {
                args.set(i + 1, "2000");
            }
        }
        switch (command) {
            case "demo":
                if (!args.contains("--topic")) {
                    args.addAll(List.of("--topic", "11.03"));
                }
                args.addAll(List.of("--base", ownFolder.toString()));
                adapted.merge("demo", 1, Integer::sum);
                break;
            case "bench":
                if (!args.contains("--events")) {
                    args.addAll(List.of("--events", "2000"));
                }
                args.addAll(List.of("--base", ownFolder.toString()));
                adapted.merge("bench", 1, Integer::sum);
                break;
            default:
                args.addAll(List.of("--base", base.toString()));
        }
        return args;
    }

    /** A database of a PostgreSQL server started here, its user in the URL. */
    private static String postgresUrl() throws Exception {
        if (postgres == null) {
            postgres = EmbeddedPostgres.builder().start();
            try (Connection c = postgres.getPostgresDatabase().getConnection();
                    Statement s = c.createStatement()) {
                s.executeUpdate("CREATE DATABASE readme");
            }
        }
        return "jdbc:postgresql://localhost:" + postgres.getPort() + "/readme?user=postgres";
    }
}
