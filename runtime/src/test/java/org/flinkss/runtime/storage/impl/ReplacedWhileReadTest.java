package org.flinkss.runtime.storage.impl;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A file replaced on an object store while it is read is read again, from its start, and whole; any
 * other failure is not retried. The replacement is told as S3A reports it: an exception named
 * {@code RemoteFileChangedException}, thrown by the open or by a read, alone or as a cause.
 */
class ReplacedWhileReadTest {

    /** S3A's exception has this simple name; its class is the S3 plugin's, shaded. */
    static final class RemoteFileChangedException extends IOException {
        RemoteFileChangedException(String message) {
            super(message);
        }
    }

    private static final byte[] NEW =
            "{\"batchId\":0}\n{\"batchId\":1}\n".getBytes(StandardCharsets.UTF_8);

    private static RemoteFileChangedException changed() {
        return new RemoteFileChangedException(
                "open `s3a://flinkss/q/_cp/q/progress/log.jsonl': Change reported by S3 during open"
                        + " at position 0. ETag b1314c03 was unavailable");
    }

    @Test
    void aFileReplacedAtItsOpenIsReadAgainWhole() throws IOException {
        AtomicInteger opens = new AtomicInteger();
        byte[] read =
                ReplacedWhileRead.readWhole(
                        () -> {
                            if (opens.incrementAndGet() == 1) {
                                throw changed();
                            }
                            return new ByteArrayInputStream(NEW);
                        });

        assertThat(read).isEqualTo(NEW);
        assertThat(opens).hasValue(2);
    }

    @Test
    void aFileReplacedDuringAReadAndWrappedInACauseIsReadAgainFromItsStart() throws IOException {
        AtomicInteger opens = new AtomicInteger();
        byte[] read =
                ReplacedWhileRead.readWhole(
                        () ->
                                opens.incrementAndGet() == 1
                                        ? failingAfter(
                                                "{\"batchId\":0}\n",
                                                new IOException("read failed", changed()))
                                        : new ByteArrayInputStream(NEW));

        // Not the first read's part followed by the second's: the new file, once.
        assertThat(new String(read, StandardCharsets.UTF_8))
                .isEqualTo("{\"batchId\":0}\n{\"batchId\":1}\n");
        assertThat(opens).hasValue(2);
    }

    @Test
    void aFileReplacedAtEveryReadFailsAfterThreeReadsWithS3sReport() {
        AtomicInteger opens = new AtomicInteger();

        assertThatThrownBy(() -> ReplacedWhileRead.readWhole(failing(opens, changed())))
                .isInstanceOf(RemoteFileChangedException.class)
                .hasMessageContaining("Change reported by S3 during open");
        assertThat(opens).hasValue(ReplacedWhileRead.ATTEMPTS).hasValue(3);
    }

    @Test
    void anyOtherFailureIsThrownAtOnce() {
        for (IOException other :
                List.of(
                        new java.io.FileNotFoundException("s3a://flinkss/gone"),
                        new IOException("connection reset"))) {
            AtomicInteger opens = new AtomicInteger();
            assertThatThrownBy(() -> ReplacedWhileRead.readWhole(failing(opens, other)))
                    .isSameAs(other);
            assertThat(opens).hasValue(1);
        }
    }

    /** Opens that count themselves in {@code opens} and each fail with {@code failure}. */
    private static ReplacedWhileRead.Opener failing(AtomicInteger opens, IOException failure) {
        return () -> {
            opens.incrementAndGet();
            throw failure;
        };
    }

    /** A stream that gives {@code first}, then fails with {@code failure}. */
    private static InputStream failingAfter(String first, IOException failure) {
        byte[] bytes = first.getBytes(StandardCharsets.UTF_8);
        return new InputStream() {
            private int next;

            @Override
            public int read() throws IOException {
                if (next < bytes.length) {
                    return bytes[next++];
                }
                throw failure;
            }
        };
    }
}
