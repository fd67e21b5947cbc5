package org.flinkss.runtime.source.impl;

import org.apache.flink.runtime.throwable.ThrowableClassifier;
import org.apache.flink.runtime.throwable.ThrowableType;

import org.junit.jupiter.api.Test;

import org.flinkss.runtime.PermanentFailure;
import org.flinkss.runtime.source.files.FileSplit;

import java.nio.file.AccessDeniedException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 14, point 9: what a reader throws for a file it may not read is an error Flink's restart
 * strategy skips (its failure handler looks for a {@link ThrowableType#NonRecoverableError} in the
 * whole cause chain), and its message names the file and the way out.
 */
class PermanentFailureTest {

    private static final FileSplit DENIED =
            new FileSplit("/data/events/batch_3/part-0.json", "batch_3/part-0.json", 2, 0);

    @Test
    void anUnreadableFileFailsTheJobWithoutRestartsNamingTheFile() {
        PermanentFailure failure =
                new PermanentFailure(
                        MicroBatchReader.deniedMessage("events", DENIED),
                        new AccessDeniedException("/data/events/batch_3/part-0.json"));
        // As Flink sees it: wrapped by the task, then by the job.
        Throwable asFlinkSeesIt = new RuntimeException("task failed", new Exception(failure));

        assertThat(
                        ThrowableClassifier.findThrowableOfThrowableType(
                                asFlinkSeesIt, ThrowableType.NonRecoverableError))
                .contains(failure);
        assertThat(ThrowableClassifier.getThrowableType(new java.io.IOException("disk")))
                .as("other errors are still retried")
                .isEqualTo(ThrowableType.RecoverableError);
        assertThat(failure.getMessage())
                .startsWith("source 'events': ")
                .contains("batch_3/part-0.json")
                .contains("permission denied, which no restart can fix")
                .contains("chmod a+r")
                .doesNotContain("\n");
    }
}
