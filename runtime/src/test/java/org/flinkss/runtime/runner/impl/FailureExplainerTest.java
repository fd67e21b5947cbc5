package org.flinkss.runtime.runner.impl;

import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.JobException;
import org.apache.flink.runtime.client.JobExecutionException;
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
}
