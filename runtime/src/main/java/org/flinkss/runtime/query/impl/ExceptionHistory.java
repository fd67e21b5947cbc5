package org.flinkss.runtime.query.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.JobException;
import org.apache.flink.runtime.client.JobExecutionException;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterJobClient;

import com.fasterxml.jackson.databind.JsonNode;

import org.flinkss.runtime.checkpoint.JsonFiles;
import org.flinkss.runtime.source.impl.MicroBatchEnumerator;

import javax.annotation.Nullable;

import java.lang.reflect.Field;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A job's failures as Flink's exception history keeps them (the web UI's Exceptions tab, REST
 * {@code GET /jobs/<id>/exceptions}): every failure, a task's with the task's own exception.
 *
 * <p>Why the job's final cause is not enough: after a task fails, the micro-batch source fails the
 * job globally so that the whole query restarts from one checkpoint (see {@code
 * MicroBatchEnumerator#addSplitsBack}). When the restart attempts run out on that global failure,
 * the final cause is the source's restart request; the exception to fix is the task's, one entry
 * earlier in the history.
 *
 * <p>The history lives in the JobManager. On a cluster ({@code flink run}) it is read from the
 * client's REST address. An embedded cluster's {@link MiniClusterJobClient} does not expose its
 * {@link MiniCluster}, whose REST endpoint has a random port: it is read from the client's field.
 * An embedded cluster that {@code java -jar} started shuts down as soon as its job ends, so the
 * history is also read whenever the job is seen restarting, and the last one read is kept. Whatever
 * fails here only leaves the history empty: the job's own cause is still reported.
 */
@Internal
public final class ExceptionHistory {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final int MAX_CAUSES = 12;

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

        Failure(@Nullable String taskName, long timestamp, List<String> chain) {
            this.taskName = taskName;
            this.timestamp = timestamp;
            this.chain = List.copyOf(chain);
        }

        @Override
        public String toString() {
            return (taskName == null ? "global" : "task '" + taskName + "'") + ": " + chain;
        }
    }

    @Nullable private final JobClient client;
    @Nullable private final ReadableConfig flinkClient;
    private List<Failure> failures = List.of();
    private long lastRefreshNanos = Long.MIN_VALUE;

    /**
     * @param flinkClient the configuration of {@code flink run}'s client, or null for an embedded
     *     run
     */
    public ExceptionHistory(@Nullable JobClient client, @Nullable ReadableConfig flinkClient) {
        this.client = client;
        this.flinkClient = flinkClient;
    }

    /** A history already read, for tests of {@link #explain}. */
    static ExceptionHistory of(List<Failure> failures) {
        ExceptionHistory history = new ExceptionHistory(null, null);
        history.failures = List.copyOf(failures);
        return history;
    }

    /** Reads the history again; keeps the last one read if the JobManager cannot be asked. */
    public void refresh() {
        lastRefreshNanos = System.nanoTime();
        try {
            Optional<URI> rest = restAddress();
            if (rest.isEmpty()) {
                return;
            }
            URI uri =
                    URI.create(
                            rest.get().toString().replaceAll("/+$", "")
                                    + "/jobs/"
                                    + client.getJobID()
                                    + "/exceptions?maxExceptions=20");
            HttpResponse<String> response =
                    HttpClient.newBuilder()
                            .connectTimeout(TIMEOUT)
                            .build()
                            .send(
                                    HttpRequest.newBuilder(uri).timeout(TIMEOUT).build(),
                                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() == 200) {
                failures = parse(JsonFiles.JSON.readTree(response.body()));
            }
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
        return failures.stream().filter(f -> f.taskName != null).findFirst();
    }

    /**
     * A job's failure for a person: first the exception to fix with its causes (the failing task's
     * own, from the history, when the final cause is the source's restart request), then where it
     * was thrown and what Flink did about it (restarts, and why it gave up).
     */
    public String explain(Throwable jobFailure) {
        List<String> flink = new ArrayList<>();
        List<String> own = new ArrayList<>();
        for (Throwable t = jobFailure;
                t != null && flink.size() + own.size() < MAX_CAUSES;
                t = t.getCause()) {
            String line = t.getClass().getSimpleName() + ": " + t.getMessage();
            boolean wrapper =
                    own.isEmpty()
                            && (t instanceof JobExecutionException || t instanceof JobException);
            List<String> into = wrapper ? flink : own;
            if (!flink.contains(line) && !own.contains(line)) {
                into.add(line);
            }
        }
        String where = null;
        boolean restartRequest =
                own.stream().anyMatch(l -> l.contains(MicroBatchEnumerator.RESTART_REQUEST));
        Optional<Failure> task = lastTaskFailure();
        if (restartRequest && task.isPresent()) {
            flink.addAll(own);
            own = new ArrayList<>(task.get().chain);
            where = task.get().taskName;
        } else if (!failures.isEmpty()
                && failures.get(0).taskName != null
                && !own.isEmpty()
                && failures.get(0).chain.get(0).equals(own.get(0))) {
            where = failures.get(0).taskName;
        }
        if (own.isEmpty()) {
            own = flink;
            flink = List.of();
        }
        StringBuilder text = new StringBuilder(String.join("\n  caused by ", own));
        if (where != null) {
            // Which attempt the history had last may lag behind the job's end: name the task only.
            text.append("\n  in task '")
                    .append(where.replaceFirst(" - execution #\\d+$", ""))
                    .append('\'');
        }
        if (!flink.isEmpty()) {
            // Flink's own words say how often it restarted (the restart strategy's attempts).
            text.append("\n  Flink gave up:\n  ").append(String.join("\n  caused by ", flink));
        }
        if (restartRequest && task.isEmpty()) {
            // No history (the JobManager could not be asked): say where the task's exception is.
            text.append(
                    "\n"
                        + "  (a task failed first: its exception is in the log, the line 'switched"
                        + " from RUNNING to FAILED')");
        }
        return text.toString();
    }

    private Optional<URI> restAddress() throws Exception {
        if (client == null) {
            return Optional.empty();
        }
        if (client instanceof MiniClusterJobClient) {
            Field field = MiniClusterJobClient.class.getDeclaredField("miniCluster");
            field.setAccessible(true);
            MiniCluster cluster = (MiniCluster) field.get(client);
            return cluster.isRunning()
                    ? Optional.of(
                            cluster.getRestAddress().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
                    : Optional.empty();
        }
        if (flinkClient != null) {
            return Optional.of(
                    URI.create(
                            "http://"
                                    + flinkClient.get(RestOptions.ADDRESS)
                                    + ":"
                                    + flinkClient.get(RestOptions.PORT)));
        }
        return Optional.empty();
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
