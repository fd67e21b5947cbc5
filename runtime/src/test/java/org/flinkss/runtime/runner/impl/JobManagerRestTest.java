package org.flinkss.runtime.runner.impl;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link JobManagerRest}'s requests against a real HTTP server on 127.0.0.1 (the JDK's), answering
 * as Flink's REST API does: a manual checkpoint's request id with 202, a refusal with 400, an
 * unknown path with 404. What the server received is checked too.
 */
class JobManagerRestTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private HttpServer server;
    private final List<String> received = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext(
                "/jobs/j1/checkpoints",
                exchange -> {
                    String body =
                            new String(
                                    exchange.getRequestBody().readAllBytes(),
                                    StandardCharsets.UTF_8);
                    received.add(
                            exchange.getRequestMethod()
                                    + " "
                                    + exchange.getRequestURI()
                                    + " "
                                    + exchange.getRequestHeaders().getFirst("Content-Type")
                                    + " "
                                    + body);
                    if (body.contains("refuse")) {
                        answer(exchange, 400, "{\"errors\":[\"refused\"]}");
                    } else if (body.contains("nothing")) {
                        answer(exchange, 202, "");
                    } else {
                        answer(exchange, 202, "{\"request-id\":\"r1\"}");
                    }
                });
        server.createContext(
                "/overview",
                exchange -> answer(exchange, 200, "{\"taskmanagers\":2,\"slots-total\":4}"));
        server.createContext(
                "/slow",
                exchange -> {
                    try {
                        Thread.sleep(2_000);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    answer(exchange, 200, "{}");
                });
        server.createContext(
                "/", exchange -> answer(exchange, 404, "{\"errors\":[\"Not found\"]}"));
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void aPostSendsItsJsonAndGivesTheAcceptedAnswersJson() throws Exception {
        Optional<JsonNode> answer = rest().postForJson("/jobs/j1/checkpoints", "{\"a\":1}");

        assertThat(answer).isPresent();
        assertThat(answer.get().path("request-id").asText()).isEqualTo("r1");
        assertThat(received)
                .containsExactly("POST /jobs/j1/checkpoints application/json {\"a\":1}");
    }

    @Test
    void aRefusedPostIsEmptyAndAnEmptyAcceptedAnswerIsAnEmptyObject() throws Exception {
        assertThat(rest().postForJson("/jobs/j1/checkpoints", "{\"refuse\":true}")).isEmpty();
        assertThat(rest().post("/jobs/j1/checkpoints", "{\"refuse\":true}")).isFalse();

        Optional<JsonNode> nothing = rest().postForJson("/jobs/j1/checkpoints", "{\"nothing\":1}");
        assertThat(nothing).isPresent();
        assertThat(nothing.get().isEmpty()).isTrue();
    }

    @Test
    void aGetGivesTheJsonOfA200AndNothingForAnUnknownPath() throws Exception {
        assertThat(JobManagerRest.get(base(), "/overview", TIMEOUT))
                .hasValueSatisfying(
                        overview -> assertThat(overview.path("slots-total").asInt()).isEqualTo(4));
        assertThat(JobManagerRest.get(base(), "/jobs/unknown", TIMEOUT)).isEmpty();
        // The same through the instance, 50 times in a row: each one answered.
        for (int i = 0; i < 50; i++) {
            assertThat(rest().get("/overview")).isPresent();
        }
    }

    @Test
    void anAnswerLaterThanTheTimeoutIsAnError() {
        assertThatThrownBy(() -> JobManagerRest.get(base(), "/slow", Duration.ofMillis(300)))
                .isInstanceOf(SocketTimeoutException.class);
    }

    @Test
    void anInterruptedThreadMakesNoRequest() {
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> rest().postForJson("/jobs/j1/checkpoints", "{}"))
                    .isInstanceOf(InterruptedException.class);
            assertThat(received).isEmpty();
        } finally {
            Thread.interrupted();
        }
    }

    /**
     * A POST that the server reads and then hangs up on (a JobManager stopping, a kept connection
     * it has closed) is sent once and is an error. The JDK's {@link java.net.HttpURLConnection}
     * would otherwise send a buffered POST again on a new connection, unseen: a checkpoint asked
     * for twice.
     */
    @Test
    void aPostTheServerHangsUpOnIsSentOnceAndIsAnError() throws Exception {
        try (ServerSocket hangsUp = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            hangsUp.setSoTimeout(2_000);
            AtomicInteger posts = new AtomicInteger();
            Thread server =
                    new Thread(
                            () -> {
                                // Every connection: read the request's head and body, then close.
                                while (!hangsUp.isClosed()) {
                                    try (Socket socket = hangsUp.accept()) {
                                        BufferedReader in =
                                                new BufferedReader(
                                                        new InputStreamReader(
                                                                socket.getInputStream(),
                                                                StandardCharsets.ISO_8859_1));
                                        String line = in.readLine();
                                        if (line != null && line.startsWith("POST ")) {
                                            posts.incrementAndGet();
                                        }
                                        while (line != null && !line.isEmpty()) {
                                            line = in.readLine();
                                        }
                                        in.read(new char[2]);
                                    } catch (IOException acceptTimedOutOrClosed) {
                                        return;
                                    }
                                }
                            },
                            "hangs-up");
            server.start();
            JobManagerRest rest = rest(hangsUp.getLocalPort());

            assertThatThrownBy(() -> rest.postForJson("/jobs/j1/checkpoints", "{}"))
                    .isInstanceOf(IOException.class);
            // A second POST would have come before the error did; nothing more is awaited.
            hangsUp.close();
            server.join(5_000);
            assertThat(posts).hasValue(1);
        }
    }

    /** A cluster's JobManagerRest; the job client is asked only for a job id, unused here. */
    private JobManagerRest rest() {
        return rest(server.getAddress().getPort());
    }

    private static JobManagerRest rest(int port) {
        Configuration flinkRunClient = new Configuration();
        flinkRunClient.set(RestOptions.ADDRESS, "127.0.0.1");
        flinkRunClient.set(RestOptions.PORT, port);
        return new JobManagerRest(null, flinkRunClient, TIMEOUT);
    }

    private URI base() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    private static void answer(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
