package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.JobException;
import org.apache.flink.runtime.client.JobExecutionException;

import org.flinkss.runtime.PermanentFailure;
import org.flinkss.runtime.source.GlobalRestartRequest;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Why a job failed, for a person: first the exception to fix with its causes, then where it was
 * thrown and what Flink did about it (restarts, and why it gave up). A {@link PermanentFailure} is
 * its message alone: one line that says what happened and what to do.
 *
 * <p>Why the job's final cause is not always the exception to fix: after a task fails, the
 * micro-batch source fails the job globally with a {@link GlobalRestartRequest} so that the whole
 * query restarts from one checkpoint. When the restart attempts run out on that global failure, the
 * final cause is the source's request; the exception to fix is the task's, one entry earlier in
 * Flink's {@link ExceptionHistory}.
 */
@Internal
public final class FailureExplainer {

    private final JobClient client;
    private final ExceptionHistory history;

    public FailureExplainer(JobClient client, ExceptionHistory history) {
        this.client = client;
        this.history = history;
    }

    /** The history the explanations use; the runner refreshes it while the job restarts. */
    public ExceptionHistory history() {
        return history;
    }

    /** Waits for the job's result and explains its failure ("no error reported" if none). */
    public String cause() {
        try {
            client.getJobExecutionResult().get(30, TimeUnit.SECONDS);
            return "no error reported";
        } catch (ExecutionException e) {
            history.refresh();
            return explain(e.getCause(), history.failures());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return e.toString();
        } catch (Exception e) {
            return e.toString();
        }
    }

    /**
     * The run's error for a failure in {@code failures} (the exception history, newest first) that
     * every restart would meet again, if there is one: Flink's sink check of a {@code NOT NULL}
     * column ({@link FlinkNotNullCheck}), since a restart reads the same rows from the same
     * checkpoint. Spark stops a query at such a failure; Flink would restart until its restart
     * strategy gives up (about 80 s with the defaults here), so the runner stops the job at the
     * first restart and says this instead.
     */
    static Optional<String> repeating(List<ExceptionHistory.Failure> failures) {
        for (ExceptionHistory.Failure failure : failures) {
            for (String line : failure.chain) {
                if (FlinkNotNullCheck.matches(line)) {
                    return Optional.of(
                            FlinkNotNullCheck.asError(line)
                                    + (failure.taskName == null ? "" : inTask(failure.taskName))
                                    + "\n  The run stopped the job at its first restart: a restart"
                                    + " reads the same rows from the checkpoint and meets the same"
                                    + " null.");
                }
            }
        }
        return Optional.empty();
    }

    /**
     * Explains {@code jobFailure}, the job's final cause, with {@code failures}, the exception
     * history newest first.
     */
    static String explain(Throwable jobFailure, List<ExceptionHistory.Failure> failures) {
        Optional<Throwable> permanent = Throwables.find(jobFailure, PermanentFailure.class);
        if (permanent.isPresent() && permanent.get().getMessage() != null) {
            // Written for a person, naming the file, topic or server and what to do; Flink did
            // not restart (the class is annotated non-recoverable), and its causes repeat it.
            return permanent.get().getMessage();
        }
        List<String> flink = new ArrayList<>();
        List<String> own = new ArrayList<>();
        for (Throwable t = jobFailure;
                t != null && flink.size() + own.size() < ExceptionHistory.MAX_CAUSES;
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
        boolean restartRequest = Throwables.isCausedBy(jobFailure, GlobalRestartRequest.class);
        Optional<ExceptionHistory.Failure> task = ExceptionHistory.lastTaskFailure(failures);
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
        own.replaceAll(FlinkNotNullCheck::asError);
        StringBuilder text = new StringBuilder(String.join("\n  caused by ", own));
        if (where != null) {
            text.append(inTask(where));
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

    /**
     * The line that names the task a failure was thrown in. Which attempt the history had last may
     * lag behind the job's end: the task only, not its execution.
     */
    private static String inTask(String taskName) {
        return "\n  in task '" + taskName.replaceFirst(" - execution #\\d+$", "") + "'";
    }
}
