package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.execution.JobClient;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;

/**
 * The line an embedded run prints once its job is submitted: where its cluster's REST API is
 * ({@code Flink REST API at http://127.0.0.1:PORT}), and with the web UI asked for, where to open
 * it. The port is a random free one unless the run serves the web UI, so without this line nobody
 * could reach the job's metrics, checkpoints or back pressure while it runs.
 */
@Internal
public final class RestAddressNotice {

    private static final Logger LOG = LoggerFactory.getLogger(RestAddressNotice.class);

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private RestAddressNotice() {}

    /** The notice's lines, for a cluster whose REST endpoint is at {@code address}. */
    public static String lines(URI address, boolean webUi) {
        String rest = "Flink REST API at " + address;
        return webUi ? rest + System.lineSeparator() + "Flink web UI at " + address + "/" : rest;
    }

    /** Prints the notice for the embedded cluster of {@code client}; nothing for another client. */
    public static void print(JobClient client, boolean webUi, PrintStream out) {
        Optional<URI> address;
        try {
            address = MiniClusterRestAddress.of(client, TIMEOUT);
        } catch (Exception e) {
            // The run goes on without the line: it is a convenience, and the job is running.
            LOG.warn("Cannot tell the embedded cluster's REST address", e);
            return;
        }
        address.ifPresent(uri -> out.println(lines(uri, webUi)));
    }
}
