package org.flinkss.runtime.runner.impl;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.RestOptions;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.flinkss.runtime.QueryException;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link ClusterSlots} against a real HTTP server that answers {@code GET /overview} as a
 * JobManager does (issue 13 point 7: a cluster run must say at once when there are not enough
 * slots).
 */
class ClusterSlotsTest {

    private HttpServer server;

    /** How often the "JobManager" was asked for its overview. */
    private final AtomicInteger asked = new AtomicInteger();

    private Configuration clientOf(int slotsTotal, int slotsAvailable) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext(
                "/overview",
                exchange -> {
                    asked.incrementAndGet();
                    byte[] body =
                            ("{\"taskmanagers\":1,\"slots-total\":"
                                            + slotsTotal
                                            + ",\"slots-available\":"
                                            + slotsAvailable
                                            + ",\"jobs-running\":0}")
                                    .getBytes(StandardCharsets.UTF_8);
                    exchange.sendResponseHeaders(200, body.length);
                    try (OutputStream out = exchange.getResponseBody()) {
                        out.write(body);
                    }
                });
        server.start();
        Configuration client = new Configuration();
        client.set(RestOptions.ADDRESS, "127.0.0.1");
        client.set(RestOptions.PORT, server.getAddress().getPort());
        return client;
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    @Test
    void aJobThatNeedsMoreSlotsThanAreFreeIsRefusedBeforeItIsSubmitted() throws IOException {
        Configuration client = clientOf(2, 2);

        assertThatThrownBy(() -> ClusterSlots.check(client, 4, "win5"))
                .isInstanceOf(QueryException.class)
                .hasMessageContaining("query 'win5' runs at parallelism 4")
                .hasMessageContaining("has 2 free of 2")
                .hasMessageContaining("--parallelism 2 or less");
    }

    @Test
    void theClientsParallelismCountsWhenTheRunSetsNone() throws IOException {
        Configuration client = clientOf(4, 1);
        client.set(CoreOptions.DEFAULT_PARALLELISM, 2);

        assertThatThrownBy(() -> ClusterSlots.check(client, null, "win5"))
                .hasMessageContaining("has 1 free of 4");
    }

    @Test
    void enoughFreeSlotsOrNoParallelismToCheckSaysNothing() throws IOException {
        Configuration client = clientOf(4, 4);

        assertThatCode(() -> ClusterSlots.check(client, 4, "win5")).doesNotThrowAnyException();
        assertThat(asked).as("the cluster was asked, and had 4 free").hasValue(1);
        assertThatCode(() -> ClusterSlots.check(client, null, "win5")).doesNotThrowAnyException();
        assertThat(asked).as("no parallelism to check: the cluster is not asked").hasValue(1);
    }

    @Test
    void anUnreachableJobManagerIsLeftToTheSubmissionToReport() {
        Configuration client = new Configuration();
        client.set(RestOptions.ADDRESS, "127.0.0.1");
        client.set(RestOptions.PORT, 1);

        assertThatCode(() -> ClusterSlots.check(client, 4, "win5")).doesNotThrowAnyException();
    }
}
