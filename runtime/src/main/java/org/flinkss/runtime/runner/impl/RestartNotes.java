package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One line for each failure the job restarts after, so that a run that rides out a broker restart
 * or a lost TaskManager says so quietly instead of in pages of client warnings, and a run that
 * gives up has already said why it retried. The lines come from Flink's exception history, which
 * the runner reads while the job restarts.
 */
@Internal
public final class RestartNotes {

    /** Flink's and Java's wrappers, which say where a failure surfaced and not what it was. */
    private static final Pattern WRAPPER =
            Pattern.compile(
                    "(GlobalRestartRequest|JobException|ExecutionException|CompletionException"
                            + "|SuppressRestartsException|FlinkException: Global failure triggered"
                            + "|FlinkRuntimeException: Failed to (handle|start)"
                            + "|RuntimeException: [\\w.$]+(Exception|Error)\\b).*",
                    Pattern.DOTALL);

    private static final Pattern SUBTASK = Pattern.compile("\\(\\d+/\\d+\\)$");

    private static final int MAX_LENGTH = 300;

    private final String queryName;
    private final PrintStream out;
    private long notedUpTo = Long.MIN_VALUE;

    public RestartNotes(String queryName, PrintStream out) {
        this.queryName = queryName;
        this.out = out;
    }

    /**
     * Prints a line for each failure of {@code failures} (newest first, as {@link ExceptionHistory}
     * keeps them) not noted before, oldest first.
     */
    public void noteNew(List<ExceptionHistory.Failure> failures) {
        List<String> lines = new ArrayList<>();
        long newest = notedUpTo;
        for (ExceptionHistory.Failure failure : failures) {
            if (failure.timestamp <= notedUpTo) {
                break;
            }
            newest = Math.max(newest, failure.timestamp);
            String what = what(failure.chain);
            if (what != null) {
                lines.add(0, line(failure, what));
            }
        }
        notedUpTo = newest;
        lines.forEach(out::println);
    }

    private String line(ExceptionHistory.Failure failure, String what) {
        String where = failure.taskName == null ? "" : " in task '" + task(failure.taskName) + "'";
        return "query '"
                + queryName
                + "': the job restarts from its last checkpoint after a failure"
                + where
                + ": "
                + what;
    }

    /**
     * A task's name, short: its first operator and its subtask, {@code Source: events -> ...
     * (2/4)}, not every operator chained to it.
     */
    static String task(String taskName) {
        String name = taskName.replaceFirst(" - execution #\\d+$", "");
        int chained = name.indexOf(" -> ");
        if (chained < 0) {
            return name;
        }
        Matcher subtask = SUBTASK.matcher(name);
        return name.substring(0, chained)
                + " -> ..."
                + (subtask.find() ? " " + subtask.group() : "");
    }

    /**
     * The exception of {@code chain} that says what failed: the first one that is not a wrapper, on
     * one line and shortened; null if the chain holds only wrappers (the global restart that
     * follows a task's failure, already noted with the task's own exception).
     */
    static String what(List<String> chain) {
        for (String exception : chain) {
            if (!WRAPPER.matcher(exception).matches()) {
                String line = exception.replaceAll("\\s*\\R\\s*", " ").trim();
                return line.length() <= MAX_LENGTH
                        ? line
                        : line.substring(0, MAX_LENGTH - 3) + "...";
            }
        }
        return null;
    }
}
