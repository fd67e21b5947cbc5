package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.JobClient;

import com.fasterxml.jackson.databind.JsonNode;

import org.flinkss.runtime.checkpoint.JsonFiles;

import javax.annotation.Nullable;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
        URI uri = URI.create(base.get().toString().replaceAll("/+$", "") + path);
        HttpResponse<String> response =
                HttpClient.newBuilder()
                        .connectTimeout(timeout)
                        .build()
                        .send(
                                HttpRequest.newBuilder(uri)
                                        .timeout(timeout)
                                        .header("Content-Type", "application/json")
                                        .POST(HttpRequest.BodyPublishers.ofString(jsonBody))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            return Optional.empty();
        }
        return Optional.of(
                response.body().isBlank()
                        ? JsonFiles.JSON.createObjectNode()
                        : JsonFiles.JSON.readTree(response.body()));
    }

    /** {@code GET <base><path>}: the answer's JSON if the status is 200, else empty. */
    static Optional<JsonNode> get(URI base, String path, Duration timeout)
            throws IOException, InterruptedException {
        URI uri = URI.create(base.toString().replaceAll("/+$", "") + path);
        HttpResponse<String> response =
                HttpClient.newBuilder()
                        .connectTimeout(timeout)
                        .build()
                        .send(
                                HttpRequest.newBuilder(uri).timeout(timeout).build(),
                                HttpResponse.BodyHandlers.ofString());
        return response.statusCode() == 200
                ? Optional.of(JsonFiles.JSON.readTree(response.body()))
                : Optional.empty();
    }
}
