package org.flinkss.runtime.runner.impl;

import org.junit.jupiter.api.Test;

import org.flinkss.runtime.checkpoint.JsonFiles;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Flink's exception history, as its REST API answers: entries, tasks, cause chains. */
class ExceptionHistoryTest {

    static final String TASK =
            "Source: events -> split-bad-lines -> to-events_bronze (1/2) - execution #2";
    static final String TASK_NAMED = "Source: events -> split-bad-lines -> to-events_bronze (1/2)";

    /**
     * As Flink prints a task's failure: a message on two lines, a cause, frames, a suppressed
     * exception.
     */
    static final String TRACE =
            String.join(
                    "\n",
                    "java.io.IOException: source 'events': file /data/events/batch_3/part-0.json"
                            + " was planned in batch 2 but is gone",
                    "second line of the message",
                    "\tat org.flinkss.runtime.source.impl.MicroBatchReader.open(MicroBatchReader.java:120)",
                    "\tat org.flinkss.runtime.source.impl.MicroBatchReader.pollNext(MicroBatchReader.java:80)",
                    "\tSuppressed: java.lang.IllegalStateException: while closing",
                    "\t\tat org.example.Closer.close(Closer.java:3)",
                    "Caused by: java.nio.file.NoSuchFileException:"
                            + " /data/events/batch_3/part-0.json",
                    "\tat java.base/sun.nio.fs.UnixException.translateToIOException(UnixException.java:92)",
                    "\t... 12 more");

    static final String GLOBAL =
            "org.apache.flink.util.FlinkException: Global failure triggered by"
                + " OperatorCoordinator\n"
                + "\tat org.apache.flink.runtime.operators.coordination.OperatorCoordinatorHolder.failJob(OperatorCoordinatorHolder.java:1)\n"
                + "Caused by: org.apache.flink.util.FlinkRuntimeException: source 'events': reader"
                + " 0 restarted from the last checkpoint; restarting the whole query from that"
                + " checkpoint so that its batches and watermark stay consistent\n";

    @Test
    void aPrintedStackTraceBecomesTheChainOfClassesAndMessages() {
        assertThat(ExceptionHistory.chain(TRACE))
                .containsExactly(
                        "IOException: source 'events': file /data/events/batch_3/part-0.json was"
                                + " planned in batch 2 but is gone\n"
                                + "    second line of the message",
                        "NoSuchFileException: /data/events/batch_3/part-0.json");
        assertThat(ExceptionHistory.simpleName("java.lang.NullPointerException"))
                .isEqualTo("NullPointerException");
        assertThat(ExceptionHistory.simpleName("not a class: x")).isEqualTo("not a class: x");
    }

    @Test
    void theRestAnswerGivesEachFailureNewestFirstWithItsTask() throws Exception {
        String json =
                "{\"exceptionHistory\":{\"entries\":["
                        + "{\"exceptionName\":\"FlinkException\",\"stacktrace\":"
                        + JsonFiles.JSON.writeValueAsString(GLOBAL)
                        + ",\"timestamp\":2,\"taskName\":null,\"failureLabels\":{},\"concurrentExceptions\":[]},"
                        + "{\"exceptionName\":\"IOException\",\"stacktrace\":"
                        + JsonFiles.JSON.writeValueAsString(TRACE)
                        + ",\"timestamp\":1,\"taskName\":\""
                        + TASK
                        + "\",\"endpoint\":\"localhost:1\",\"failureLabels\":{},\"concurrentExceptions\":[]}"
                        + "],\"truncated\":false}}";

        List<ExceptionHistory.Failure> failures =
                ExceptionHistory.parse(JsonFiles.JSON.readTree(json));

        assertThat(failures).extracting(f -> f.taskName).containsExactly(null, TASK);
        assertThat(failures.get(0).chain)
                .hasSize(2)
                .last()
                .asString()
                .contains("restarted from the last checkpoint");
        assertThat(failures.get(1).chain.get(0)).startsWith("IOException: source 'events'");
        assertThat(failures.get(1).timestamp).isEqualTo(1);
    }
}
