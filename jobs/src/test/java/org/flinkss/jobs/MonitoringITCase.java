package org.flinkss.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.checkpoint.JsonFiles;
import org.flinkss.runtime.testing.ChildJvm;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Flink's monitoring of an embedded run, as docs/monitoring.md shows it: {@code --web-ui} serves
 * Flink's web UI and REST API at the address the run prints, a Prometheus reporter given with
 * {@code -D} (the bundled {@code flink-metrics-prometheus}) serves {@code /metrics} while the run
 * goes on, and {@code -D} reaches the job's cluster (a TaskManager with the slots it asked for).
 * Every port is a free one: the REST endpoint binds port 0, the reporter a port found free.
 */
class MonitoringITCase {

    private static final Pattern WEB_UI = Pattern.compile("Flink web UI at (http://\\S+?)/?\\s");
    private static final Pattern REST = Pattern.compile("Flink REST API at (http://\\S+)\\s");

    @TempDir Path dir;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private HttpResponse<String> get(String uri) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    void aRunWithTheWebUiAndAPrometheusReporterServesBothWhileItRuns() throws Exception {
        String base = dir.resolve("base").toString();
        for (int b = 0; b < 2; b++) {
            CliOutput landed =
                    CliOutput.of(
                            "land-events",
                            "--base",
                            base,
                            "--batch",
                            "" + b,
                            "--start",
                            "" + b * 50,
                            "--n",
                            "50");
            assertThat(landed.code()).as(landed.err()).isZero();
        }
        int prometheus = freePort();

        try (ChildJvm run =
                ChildJvm.of(Main.class)
                        .workDir(dir)
                        .output(dir.resolve("run.log"))
                        .start(
                                "run",
                                "bronze",
                                "--base",
                                base,
                                "--trigger",
                                "processing-time=1s",
                                "--run-for",
                                "30s",
                                "--web-ui",
                                "-D",
                                "rest.bind-port=0",
                                "-D",
                                "taskmanager.numberOfTaskSlots=3",
                                "-D",
                                "metrics.reporter.prom.factory.class="
                                        + "org.apache.flink.metrics.prometheus"
                                        + ".PrometheusReporterFactory",
                                "-D",
                                "metrics.reporter.prom.port=" + prometheus)) {
            assertThat(
                            run.await(
                                    "web UI address",
                                    () -> WEB_UI.matcher(run.outputText()).find(),
                                    Duration.ofMinutes(3)))
                    .as("the run is alive; its output:%n%s", run.outputText())
                    .isTrue();
            String output = run.outputText();
            Matcher ui = WEB_UI.matcher(output);
            assertThat(ui.find()).isTrue();
            Matcher rest = REST.matcher(output);
            assertThat(rest.find()).as(output).isTrue();
            assertThat(rest.group(1)).isEqualTo(ui.group(1));
            String address = ui.group(1);

            // Step 1: the web UI's page, from flink-runtime-web.
            HttpResponse<String> page = get(address + "/");
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.body()).containsIgnoringCase("<html").contains("Apache Flink");

            // Step 2: the REST API: the job runs, on a TaskManager with the slots -D asked for.
            JsonNode jobs = JsonFiles.JSON.readTree(get(address + "/jobs/overview").body());
            assertThat(jobs.path("jobs").findValuesAsText("name")).contains("bronze");
            JsonNode managers = JsonFiles.JSON.readTree(get(address + "/taskmanagers").body());
            assertThat(managers.path("taskmanagers").get(0).path("slotsNumber").asInt())
                    .isEqualTo(3);

            // Step 3: Prometheus scrapes the reporter the configuration named.
            HttpResponse<String> metrics = get("http://127.0.0.1:" + prometheus + "/metrics");
            assertThat(metrics.statusCode()).isEqualTo(200);
            assertThat(metrics.body())
                    .contains("flink_jobmanager_numRegisteredTaskManagers")
                    .contains("job_name=\"bronze\"");

            assertThat(run.waitFor(Duration.ofMinutes(2))).as(run.outputText()).isZero();
            assertThat(run.outputText()).contains("bronze: ").doesNotContain("could not be found");
        }
    }
}
