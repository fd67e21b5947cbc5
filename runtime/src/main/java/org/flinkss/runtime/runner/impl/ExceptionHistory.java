package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;

import com.fasterxml.jackson.databind.JsonNode;

import javax.annotation.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A job's failures as Flink's exception history keeps them (the web UI's Exceptions tab, REST
 * {@code GET /jobs/<id>/exceptions}): every failure, a task's with the task's own exception. {@link
 * FailureExplainer} uses them when the job's final cause is not the exception to fix.
 *
 * <p>The history lives in the JobManager ({@link JobManagerRest}). An embedded cluster that {@code
 * java -jar} started shuts down as soon as its job ends, so the history is also read whenever the
 * job is seen restarting, and the last one read is kept. Whatever fails here only leaves the
 * history empty: the job's own cause is still reported.
 */
@Internal
public final class ExceptionHistory {

    static final int MAX_CAUSES = 12;

    /** One root entry of the history: a task's failure (with the task's name) or a global one. */
    public static final class Failure {
        /**
         * The failing task, as Flink names it ({@code Source: events -> ... (1/2)}); null for a
         * global failure.
         */
        @Nullable public final String taskName;

        public final long timestamp;

        /**
         * {@code SimpleClassName: message} of the exception and of each of its causes, outermost
         * first.
         */
        public final List<String> chain;

        public Failure(@Nullable String taskName, long timestamp, List<String> chain) {
            this.taskName = taskName;
            this.timestamp = timestamp;
            this.chain = List.copyOf(chain);
        }

        @Override
        public String toString() {
            return (taskName == null ? "global" : "task '" + taskName + "'") + ": " + chain;
        }
    }

    @Nullable private final JobManagerRest jobManager;
    private List<Failure> failures = List.of();
    private long lastRefreshNanos = Long.MIN_VALUE;

    /**
     * @param jobManager where the history is read, or null for none (every read leaves it empty)
     */
    public ExceptionHistory(@Nullable JobManagerRest jobManager) {
        this.jobManager = jobManager;
    }

    /** Reads the history again; keeps the last one read if the JobManager cannot be asked. */
    public void refresh() {
        lastRefreshNanos = System.nanoTime();
        if (jobManager == null) {
            return;
        }
        try {
            jobManager
                    .get("/jobs/" + jobManager.jobId() + "/exceptions?maxExceptions=20")
                    .ifPresent(answer -> failures = parse(answer));
        } catch (Exception | LinkageError e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            // The cluster is gone or unreachable: keep what was read before.
        }
    }

    /** {@link #refresh()}, unless it was done less than {@code interval} ago. */
    public void refreshAtMostEvery(Duration interval) {
        if (lastRefreshNanos == Long.MIN_VALUE
                || System.nanoTime() - lastRefreshNanos >= interval.toNanos()) {
            refresh();
        }
    }

    /** The failures read last, newest first. */
    public List<Failure> failures() {
        return failures;
    }

    /** The newest failure of a task, if any. */
    public Optional<Failure> lastTaskFailure() {
        return lastTaskFailure(failures);
    }

    static Optional<Failure> lastTaskFailure(List<Failure> failures) {
        return failures.stream().filter(f -> f.taskName != null).findFirst();
    }

    /**
     * The entries of a {@code /jobs/<id>/exceptions} answer, newest first (as Flink sends them).
     */
    static List<Failure> parse(JsonNode response) {
        List<Failure> list = new ArrayList<>();
        for (JsonNode entry : response.path("exceptionHistory").path("entries")) {
            JsonNode task = entry.path("taskName");
            List<String> chain = chain(entry.path("stacktrace").asText(""));
            if (chain.isEmpty()) {
                chain =
                        List.of(
                                simpleName(
                                        entry.path("exceptionName")
                                                .asText("an unknown exception")));
            }
            list.add(
                    new Failure(
                            task.isTextual() ? task.asText() : null,
                            entry.path("timestamp").asLong(),
                            chain));
        }
        return list;
    }

    /**
     * The exception and its causes from a printed stack trace ({@code Throwable#printStackTrace}'s
     * text): the first line and every {@code Caused by:} line, with the lines of a message that
     * spans several, class names made simple, frames and suppressed exceptions left out.
     */
    static List<String> chain(String stackTrace) {
        List<String> chain = new ArrayList<>();
        StringBuilder current = null;
        boolean inFrames = false;
        for (String line : stackTrace.split("\\R")) {
            if (line.startsWith("Caused by: ")) {
                add(chain, current);
                current = new StringBuilder(simpleName(line.substring("Caused by: ".length())));
                inFrames = false;
            } else if (line.startsWith("\t") || line.startsWith(" ")) {
                inFrames = true; // frames, "... 12 more", suppressed exceptions and their frames
            } else if (current == null && !line.isBlank()) {
                current = new StringBuilder(simpleName(line));
            } else if (current != null && !inFrames) {
                current.append("\n    ").append(line);
            }
        }
        add(chain, current);
        return chain.size() > MAX_CAUSES ? chain.subList(0, MAX_CAUSES) : chain;
    }

    private static void add(List<String> chain, @Nullable StringBuilder line) {
        if (line != null && !chain.contains(line.toString())) {
            chain.add(line.toString());
        }
    }

    /** {@code java.io.IOException: gone} becomes {@code IOException: gone}. */
    static String simpleName(String line) {
        int colon = line.indexOf(": ");
        String type = colon < 0 ? line.trim() : line.substring(0, colon);
        if (!type.matches("[\\w$.]+")) {
            return line;
        }
        String simple = type.substring(type.lastIndexOf('.') + 1);
        return colon < 0 ? simple : simple + line.substring(colon);
    }
}
