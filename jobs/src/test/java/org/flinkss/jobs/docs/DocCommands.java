package org.flinkss.jobs.docs;

import org.flinkss.testutils.ProjectScripts;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The commands of a {@code run} block ({@link DocBlocks}) as {@link ReadmeCommandsITCase} runs
 * them: a line that starts with the jar's launcher ({@code $J}, {@code java -jar
 * jobs/target/flinkss-jobs.jar} or {@code scripts/flinkss}) is a command of the jar, run in the
 * test's JVM; any other line is a shell command (making a folder, writing a file), run by bash in
 * the page's working folder. Comment lines and the launcher's setting ({@code J=...}) are skipped;
 * a line ending in a backslash goes on on the next.
 */
final class DocCommands {

    /** One command of a block: where it is, and what it says. */
    sealed interface Command permits Jar, Shell {
        /** The command as the page writes it. */
        String text();

        /** {@code page:line} of the command's first line. */
        String where();
    }

    /** A command of the jar: its arguments, and the comment after it on the line. */
    record Jar(List<String> args, String comment, String text, String where) implements Command {}

    /** A shell command. */
    record Shell(String text, String where) implements Command {}

    private static final Pattern LAUNCHER =
            Pattern.compile(
                    "^(?:\\$J|java -jar jobs/target/flinkss-jobs\\.jar|scripts/flinkss)\\s+");
    private static final Pattern LAUNCHER_SETTING =
            Pattern.compile(
                    "^J=\"?(?:java -jar"
                            + " jobs/target/flinkss-jobs\\.jar|scripts/flinkss)\"?\\s*(#.*)?$");
    private static final Pattern COMMENT = Pattern.compile("\\s+#\\s*");

    private DocCommands() {}

    /** The commands of {@code block}, failing on a line this test cannot run as written. */
    static List<Command> of(DocBlocks.Block block) {
        List<Command> commands = new ArrayList<>();
        List<String> lines = block.lines();
        for (int i = 0; i < lines.size(); i++) {
            int first = i;
            StringBuilder joined = new StringBuilder(lines.get(i).strip());
            while (joined.toString().endsWith("\\") && i + 1 < lines.size()) {
                joined.setLength(joined.length() - 1);
                joined.append(' ').append(lines.get(++i).strip());
            }
            String line = joined.toString().strip();
            String where =
                    ProjectScripts.ROOT.relativize(block.page()) + ":" + (block.line() + 1 + first);
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            if (line.startsWith("J=")) {
                if (!LAUNCHER_SETTING.matcher(line).matches()) {
                    throw new AssertionError(where + " sets J to something else: " + line);
                }
                continue;
            }
            Matcher launcher = LAUNCHER.matcher(line);
            if (launcher.find()) {
                commands.add(jar(line.substring(launcher.end()), line, where));
            } else if (line.contains("$J") || line.contains("flinkss-jobs.jar")) {
                throw new AssertionError(
                        where
                                + " runs the jar inside a shell command; give the jar's command a"
                                + " line of its own: "
                                + line);
            } else {
                commands.add(new Shell(line, where));
            }
        }
        return commands;
    }

    private static Jar jar(String command, String text, String where) {
        String comment = "";
        Matcher hash = COMMENT.matcher(command);
        if (hash.find()) {
            comment = command.substring(hash.end()).strip();
            command = command.substring(0, hash.start());
        }
        if (command.contains("\"") || command.contains("'") || command.contains("$")) {
            throw new AssertionError(
                    where
                            + " quotes an argument or names a variable, which this test does not"
                            + " parse: "
                            + text);
        }
        return new Jar(List.of(command.strip().split("\\s+")), comment, text, where);
    }
}
