package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.JobClient;

import com.fasterxml.jackson.databind.JsonNode;

import org.flinkss.runtime.checkpoint.JsonFiles;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * The REST API of the JobManager that runs a job, for what a {@link JobClient} does not say (the
 * exception history, the savepoint of a job stopped from outside). On a cluster ({@code flink run})
 * its address is in the client's configuration; an embedded cluster's is found by {@link
 * MiniClusterRestAddress}.
 */
@Internal
public final class JobManagerRest {

    private final JobClient client;
    @Nullable private final ReadableConfig flinkRunClient;
    private final Duration timeout;

    /**
     * @param flinkRunClient the configuration of {@code flink run}'s client, or null for an
     *     embedded run
     */
    public JobManagerRest(
            JobClient client, @Nullable ReadableConfig flinkRunClient, Duration timeout) {
        this.client = client;
        this.flinkRunClient = flinkRunClient;
        this.timeout = timeout;
    }

    public String jobId() {
        return client.getJobID().toString();
    }

    /** The JobManager's REST address, if it can be known and, when embedded, still runs. */
    public Optional<URI> address() throws Exception {
        if (flinkRunClient != null) {
            return Optional.of(of(flinkRunClient));
        }
        return MiniClusterRestAddress.of(client, timeout);
    }

    /** The REST address of the cluster that {@code flink run}'s client submits to. */
    public static URI of(ReadableConfig flinkRunClient) {
        return URI.create(
                "http://"
                        + flinkRunClient.get(RestOptions.ADDRESS)
                        + ":"
                        + flinkRunClient.get(RestOptions.PORT));
    }

    /**
     * {@code GET <address><path>}: the answer's JSON if the status is 200, else empty (also when
     * the JobManager's address is unknown).
     */
    public Optional<JsonNode> get(String path) throws Exception {
        Optional<URI> base = address();
        if (base.isEmpty()) {
            return Optional.empty();
        }
        return get(base.get(), path, timeout);
    }

    /**
     * {@code POST <address><path>} with a JSON body: whether the JobManager accepted it (a 2xx
     * status); false when its address is unknown.
     */
    public boolean post(String path, String jsonBody) throws Exception {
        return postForJson(path, jsonBody).isPresent();
    }

    /**
     * {@code POST <address><path>} with a JSON body: the answer's JSON if the JobManager accepted
     * it (a 2xx status; an empty object for an empty answer), else empty.
     */
    public Optional<JsonNode> postForJson(String path, String jsonBody) throws Exception {
        Optional<URI> base = address();
        if (base.isEmpty()) {
            return Optional.empty();
        }
        Answer answer = request(base.get(), path, jsonBody, timeout);
        if (answer.status / 100 != 2) {
            return Optional.empty();
        }
        return Optional.of(
                answer.body.isBlank()
                        ? JsonFiles.JSON.createObjectNode()
                        : JsonFiles.JSON.readTree(answer.body));
    }

    /** {@code GET <base><path>}: the answer's JSON if the status is 200, else empty. */
    static Optional<JsonNode> get(URI base, String path, Duration timeout)
            throws IOException, InterruptedException {
        Answer answer = request(base, path, null, timeout);
        return answer.status == 200
                ? Optional.of(JsonFiles.JSON.readTree(answer.body))
                : Optional.empty();
    }

    /**
     * One request through the JDK's {@link HttpURLConnection}, a GET or, with a body, a POST. Its
     * first request costs milliseconds, where a {@code java.net.http.HttpClient}'s first one sets
     * up TLS, which a plain-HTTP JobManager never uses, for about 0.3 s of a short run's start; and
     * the JDK keeps its connections for the next request.
     */
    private static Answer request(
            URI base, String path, @Nullable String jsonBody, Duration timeout)
            throws IOException, InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        URI uri = URI.create(base.toString().replaceAll("/+$", "") + path);
        HttpURLConnection connection = (HttpURLConnection) uri.toURL().openConnection();
        int millis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
        connection.setConnectTimeout(millis);
        connection.setReadTimeout(millis);
        if (jsonBody != null) {
            byte[] bytes = jsonBody.getBytes(StandardCharsets.UTF_8);
            connection.setRequestMethod("POST");
            connection.setDoOutput(true);
            connection.setRequestProperty("Content-Type", "application/json");
            // Streamed, not buffered: the JDK sends a buffered POST again, unseen, when the server
            // hangs up before it answers (a checkpoint asked for twice); a streamed one fails.
            connection.setFixedLengthStreamingMode(bytes.length);
            try (OutputStream out = connection.getOutputStream()) {
                out.write(bytes);
            }
        }
        int status = connection.getResponseCode();
        // Read to the end and closed, so that the connection goes back to the JDK's cache.
        try (InputStream in =
                status >= 400 ? connection.getErrorStream() : connection.getInputStream()) {
            String body = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return new Answer(status, body);
        }
    }

    private record Answer(int status, String body) {}
}
