package org.flinkss.runtime.runner.impl;

import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.JobException;
import org.apache.flink.runtime.client.JobExecutionException;
import org.apache.flink.table.runtime.operators.sink.constraint.EnforcerException;
import org.apache.flink.util.FlinkException;
import org.apache.flink.util.FlinkRuntimeException;
import org.apache.flink.util.SerializedThrowable;

import org.junit.jupiter.api.Test;

import org.flinkss.runtime.PermanentFailure;
import org.flinkss.runtime.source.GlobalRestartRequest;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.flinkss.runtime.runner.impl.ExceptionHistoryTest.GLOBAL;
import static org.flinkss.runtime.runner.impl.ExceptionHistoryTest.TASK;
import static org.flinkss.runtime.runner.impl.ExceptionHistoryTest.TASK_NAMED;
import static org.flinkss.runtime.runner.impl.ExceptionHistoryTest.TRACE;

/**
 * How a job's failure is explained: the exception to fix first, where it was thrown, then what
 * Flink did. The source's restart request is told by its type, also when it crossed the wire.
 */
class FailureExplainerTest {

    /** The history of a query whose task failed, then the source asked for a global restart. */
    private static final List<ExceptionHistory.Failure> HISTORY =
            List.of(
                    new ExceptionHistory.Failure(null, 2, ExceptionHistory.chain(GLOBAL)),
                    new ExceptionHistory.Failure(TASK, 1, ExceptionHistory.chain(TRACE)));

    /** The final cause of a job whose last failure is the source's restart request. */
    private static Throwable restartRequestGaveUp() {
        return gaveUpOn(new GlobalRestartRequest("events", 0));
    }

    private static Throwable gaveUpOn(Throwable globalFailure) {
        return new JobExecutionException(
                new JobID(),
                "Job execution failed.",
                new JobException(
                        "Recovery is suppressed by"
                                + " ExponentialDelayRestartBackoffTimeStrategy(attempts=3)",
                        new FlinkException(
                                "Global failure triggered by OperatorCoordinator", globalFailure)));
    }

    @Test
    void whenTheSourcesRestartRequestEndsTheJobTheTasksOwnExceptionComesFirst() {
        String text = FailureExplainer.explain(restartRequestGaveUp(), HISTORY);

        assertThat(text)
                .startsWith(
                        "IOException: source 'events': file /data/events/batch_3/part-0.json was"
                                + " planned in batch 2");
        assertThat(text)
                .contains(
                        "\n"
                            + "  caused by NoSuchFileException: /data/events/batch_3/part-0.json\n"
                            + "  in task '"
                                + TASK_NAMED
                                + "'");
        assertThat(text.indexOf("NoSuchFileException"))
                .isLessThan(text.indexOf("Recovery is suppressed"));
        assertThat(text)
                .contains(
                        "Flink gave up:\n"
                                + "  JobExecutionException: Job execution failed.\n"
                                + "  caused by JobException: Recovery is suppressed");
        assertThat(text).endsWith("so that its batches and watermark stay consistent");
    }

    @Test
    void withoutAHistoryTheRestartRequestSaysWhereTheTasksExceptionIs() {
        String text = FailureExplainer.explain(restartRequestGaveUp(), List.of());

        assertThat(text)
                .startsWith("FlinkException: Global failure triggered by OperatorCoordinator");
        assertThat(text).contains("Flink gave up:\n  JobExecutionException: Job execution failed.");
        assertThat(text)
                .endsWith(
                        "(a task failed first: its exception is in the log, the line 'switched from"
                                + " RUNNING to FAILED')");
    }

    @Test
    void aTaskExceptionThatEndsTheJobItselfComesFirstBeforeFlinksWrappers() {
        Throwable failure =
                new JobExecutionException(
                        new JobID(),
                        "Job execution failed.",
                        new JobException(
                                "Recovery is suppressed by NoRestartBackoffTimeStrategy",
                                new IllegalStateException(
                                        "boom", new ArithmeticException("/ by zero"))));
        List<ExceptionHistory.Failure> history =
                List.of(
                        new ExceptionHistory.Failure(
                                TASK,
                                1,
                                List.of(
                                        "IllegalStateException: boom",
                                        "ArithmeticException: / by zero")));

        assertThat(FailureExplainer.explain(failure, history))
                .isEqualTo(
                        "IllegalStateException: boom\n"
                                + "  caused by ArithmeticException: / by zero\n"
                                + "  in task '"
                                + TASK_NAMED
                                + "'\n"
                                + "  Flink gave up:\n"
                                + "  JobExecutionException: Job execution failed.\n"
                                + "  caused by JobException: Recovery is suppressed by"
                                + " NoRestartBackoffTimeStrategy");
    }

    @Test
    void theRestartRequestIsToldByItsTypeAlsoWhenItArrivesSerialized() {
        // As a job's result may carry it when the class cannot be loaded where it is read.
        Throwable serialized = gaveUpOn(new SerializedThrowable(new GlobalRestartRequest("x", 1)));

        assertThat(FailureExplainer.explain(serialized, HISTORY))
                .startsWith("IOException: source 'events'");
    }

    @Test
    void anExceptionThatOnlySaysWhatTheRestartRequestSaysIsNotOne() {
        // The same words in another type: the job's own failure comes first, as it is.
        Throwable lookalike =
                gaveUpOn(
                        new FlinkRuntimeException(
                                "source 'events': reader 0 restarted from the last checkpoint;"
                                        + " restarting the whole query from that checkpoint"));

        assertThat(FailureExplainer.explain(lookalike, HISTORY))
                .startsWith("FlinkException: Global failure triggered by OperatorCoordinator")
                .doesNotContain("IOException");
    }

    @Test
    void aPermanentFailureIsItsOneLineAloneAlsoWhenItArrivesSerialized() {
        PermanentFailure denied =
                new PermanentFailure(
                        "source 'events': file /b/x.json cannot be read: permission denied, which"
                                + " no restart can fix. Let the user ...",
                        new java.nio.file.AccessDeniedException("/b/x.json"));
        Throwable failure =
                new JobExecutionException(
                        new JobID(),
                        "Job execution failed.",
                        new JobException("The failure is not recoverable", denied));

        assertThat(FailureExplainer.explain(failure, List.of())).isEqualTo(denied.getMessage());
        assertThat(FailureExplainer.explain(gaveUpOn(new SerializedThrowable(denied)), HISTORY))
                .isEqualTo(denied.getMessage());
    }

    /** Flink's own words, from its sink check ({@code NotNullConstraint}, Flink 2.2.0). */
    private static final String FLINK_NOT_NULL =
            "Column '%s' is NOT NULL, however, a null value is being written into it. You can set"
                    + " job configuration 'table.exec.sink.not-null-enforcer'='DROP' to suppress"
                    + " this exception and drop such records silently.";

    /** What the run's error says for it, in the project's words, before where it was thrown. */
    private static final String NOT_NULL_ERROR =
            "a row has a null in column 'note', which the table it is written to declares NOT NULL"
                    + " (Flink's check at the sink): the batch failed before it committed, so the"
                    + " table and the checkpoint stay as they were. Give the column a value"
                    + " (COALESCE(note, ...)), leave such rows out (WHERE note IS NOT NULL), or"
                    + " declare the column without NOT NULL (a changed column needs 'reset"
                    + " <query>')\n";

    @Test
    void flinksNotNullCheckIsSaidAsWhatHappenedAndWhatToDoWithoutAdviceToDropRows() {
        String task = "Source: events_bronze -> ConstraintEnforcer[87] -> to-notes (2/2)";
        Throwable thrown = new EnforcerException(FLINK_NOT_NULL, "note");
        List<ExceptionHistory.Failure> history =
                List.of(
                        new ExceptionHistory.Failure(null, 2, ExceptionHistory.chain(GLOBAL)),
                        new ExceptionHistory.Failure(
                                task + " - execution #4",
                                1,
                                List.of("EnforcerException: " + thrown.getMessage())));

        // As it ends a query: the source's restart request, the task's failure in the history.
        String text = FailureExplainer.explain(restartRequestGaveUp(), history);

        assertThat(text)
                .startsWith(NOT_NULL_ERROR + "  in task '" + task + "'")
                .doesNotContain("not-null-enforcer")
                .doesNotContain("silently");
        // As the job's own failure, and serialized, where the class cannot be loaded.
        Throwable direct =
                new JobExecutionException(
                        new JobID(),
                        "Job execution failed.",
                        new JobException("Recovery is suppressed", thrown));
        assertThat(FailureExplainer.explain(direct, List.of()))
                .startsWith("a row has a null in column 'note'")
                .doesNotContain("not-null-enforcer");
        assertThat(FlinkNotNullCheck.asError("SerializedThrowable: " + thrown))
                .startsWith("a row has a null in column 'note'");
        // Any other line is left as it is.
        assertThat(FlinkNotNullCheck.asError("EnforcerException: Column 'note' is too long"))
                .isEqualTo("EnforcerException: Column 'note' is too long");
    }

    @Test
    void aNullInANotNullColumnIsAFailureEveryRestartMeetsAgainAndOthersAreNot() {
        String task = "Source: events_bronze -> ConstraintEnforcer[87] -> to-notes (1/2)";
        String thrown = new EnforcerException(FLINK_NOT_NULL, "note").toString();
        // As the history holds it while the job restarts: the source's global restart request
        // newest, the task's failure (wrapped, as Flink serializes it) before it.
        List<ExceptionHistory.Failure> history =
                List.of(
                        new ExceptionHistory.Failure(null, 2, ExceptionHistory.chain(GLOBAL)),
                        new ExceptionHistory.Failure(
                                task + " - execution #1",
                                1,
                                List.of(
                                        "RuntimeException: java.io.IOException: wrapped",
                                        "SerializedThrowable: " + thrown)));

        assertThat(FailureExplainer.repeating(history))
                .hasValue(
                        NOT_NULL_ERROR
                                + "  in task '"
                                + task
                                + "'\n"
                                + "  The run stopped the job at its first restart: a restart reads"
                                + " the same rows from the checkpoint and meets the same null.");
        // A failure a restart may ride out (a broker away, a lost TaskManager) is left to Flink.
        assertThat(FailureExplainer.repeating(HISTORY)).isEmpty();
        assertThat(FailureExplainer.repeating(List.of())).isEmpty();
        assertThat(
                        FailureExplainer.repeating(
                                List.of(
                                        new ExceptionHistory.Failure(
                                                task,
                                                1,
                                                List.of(
                                                        "EnforcerException: Column 'note' is"
                                                                + " too long")))))
                .isEmpty();
    }
}
