package org.flinkss.jobs.docs;

import org.apache.flink.test.junit5.MiniClusterExtension;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.testing.KafkaTestBroker;
import org.flinkss.jobs.CliOutput;
import org.flinkss.jobs.Main;
import org.flinkss.testutils.MiniClusters;
import org.flinkss.testutils.ProjectScripts;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The README's Commands block runs top to bottom on one base (issue 14, point 15): every command
 * line of the block, read from {@code README.md} at the repository root, is run in order in this
 * JVM ({@link Main#execute}, as {@code java -jar} runs it) on one fresh base, and must exit 0.
 *
 * <p>How each line is adapted, and nothing else:
 *
 * <ul>
 *   <li>{@code --base <fresh folder>} is appended (the block uses the default base {@code data});
 *       {@code demo} and {@code bench}, which work in folders of their own, get a fresh one each.
 *   <li>{@code --run-for <any>} becomes {@code --run-for 3s}: the processing-time run needs no more
 *       to show that the checkpoint takes it.
 *   <li>{@code --jdbc-url jdbc:postgresql://...} names a PostgreSQL server started here (as {@code
 *       LatestITCase} does), its user in the URL: there is no server at the README's address.
 *   <li>{@code demo} runs {@code --topic 11.03} (landing and bronze, compared with the course): the
 *       whole walkthrough takes about 30 s alone.
 *   <li>{@code bench ... --events N} runs 2,000 events instead of a million.
 * </ul>
 *
 * No line is skipped. A line that reads or writes Kafka would fail here (no broker at its address):
 * start {@link KafkaTestBroker} for it and adapt it above. A line whose comment is a number alone
 * ({@code # 1000}) must print that number last.
 */
class ReadmeCommandsITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    /** The block had 41 command lines when this test was written; far fewer means a bad parse. */
    private static final int AT_LEAST = 35;

    private static final Pattern LAUNCHER =
            Pattern.compile(
                    "^(?:\\$J|java -jar jobs/target/flinkss-jobs\\.jar|scripts/flinkss)\\s+");

    private static EmbeddedPostgres postgres;

    @TempDir Path dir;

    @AfterAll
    static void stopPostgres() throws IOException {
        if (postgres != null) {
            postgres.close();
        }
    }

    /** A command line of the block: its arguments, and the comment after it. */
    record Line(List<String> args, String comment, String text) {}

    @Test
    void theCommandsBlockRunsTopToBottomOnOneBase() throws Exception {
        List<Line> lines = commandsBlock(ProjectScripts.ROOT.resolve("README.md"));
        assertThat(lines)
                .as("command lines of the README's Commands block")
                .hasSizeGreaterThanOrEqualTo(AT_LEAST);
        Path base = dir.resolve("base");
        Map<String, Integer> adapted = new LinkedHashMap<>();
        for (String adaptation : List.of("--run-for", "--jdbc-url postgresql", "demo", "bench")) {
            adapted.put(adaptation, 0);
        }

        int n = 0;
        for (Line line : lines) {
            n++;
            List<String> args = adapt(line.args(), base, dir.resolve("own-" + n), adapted);
            long started = System.nanoTime();
            CliOutput o = CliOutput.of(args.toArray(String[]::new));
            System.out.printf(
                    "README line %d (%.1f s): %s%n", n, (System.nanoTime() - started) / 1e9, args);
            assertThat(o.code())
                    .as(
                            "README line %d, %s\nran as %s\nstdout:\n%s\nstderr:\n%s",
                            n, line.text(), args, tail(o.out()), tail(o.err()))
                    .isZero();
            if (line.comment().matches("\\d+")) {
                assertThat(o.out().strip()).as(line.text()).endsWith(line.comment());
            }
            if (line.args().get(0).equals("recompute")) {
                // The block runs win5 in update mode before it: its windows are in the SQL
                // database, and the recompute rebuilds them there.
                assertThat(o.out()).as(line.text()).contains("in the SQL database");
            }
        }
        assertThat(adapted)
                .as("each adaptation this test makes still has a README line to adapt")
                .allSatisfy((what, times) -> assertThat(times).as(what).isPositive());
    }

    private static String tail(String text) {
        return text.length() <= 4000 ? text : "..." + text.substring(text.length() - 4000);
    }

    /**
     * The command lines of the first {@code bash} block under {@code ## Commands}, failing loudly
     * if there is no such block or a line of it is neither a command nor the launcher's setting.
     */
    static List<Line> commandsBlock(Path readme) throws IOException {
        List<String> text = Files.readAllLines(readme, StandardCharsets.UTF_8);
        int heading = text.indexOf("## Commands");
        if (heading < 0) {
            fail("no '## Commands' heading in " + readme);
        }
        int open = -1;
        for (int i = heading + 1; i < text.size() && !text.get(i).startsWith("## "); i++) {
            if (text.get(i).strip().equals("```bash")) {
                open = i;
                break;
            }
        }
        if (open < 0) {
            fail("no ```bash block under '## Commands' in " + readme);
        }
        List<Line> lines = new ArrayList<>();
        for (int i = open + 1; ; i++) {
            if (i == text.size()) {
                fail("the Commands block of " + readme + " has no closing ```");
            }
            String line = text.get(i).strip();
            if (line.equals("```")) {
                return lines;
            }
            if (line.isEmpty() || line.startsWith("#") || line.startsWith("J=")) {
                continue;
            }
            Matcher launcher = LAUNCHER.matcher(line);
            if (!launcher.find()) {
                fail(
                        "line %d of %s, in the Commands block, is not a command of the jar: %s",
                        i + 1, readme, line);
            }
            String command = line.substring(launcher.end());
            String comment = "";
            Matcher hash = Pattern.compile("\\s+#\\s*").matcher(command);
            if (hash.find()) {
                comment = command.substring(hash.end()).strip();
                command = command.substring(0, hash.start());
            }
            if (command.contains("\"") || command.contains("'")) {
                fail(
                        "line %d of %s quotes an argument, which this test does not parse",
                        i + 1, readme);
            }
            lines.add(new Line(List.of(command.strip().split("\\s+")), comment, line));
        }
    }

    /** The arguments this test runs for a README line (see the class comment). */
    private static List<String> adapt(
            List<String> readme, Path base, Path ownFolder, Map<String, Integer> adapted)
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
