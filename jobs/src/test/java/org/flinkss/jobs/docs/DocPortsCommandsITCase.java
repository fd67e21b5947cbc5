package org.flinkss.jobs.docs;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.testutils.ClusterInstallationLock;
import org.flinkss.testutils.ProjectScripts;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The documented commands that start servers on fixed ports run as written: every {@code ports}
 * block of the README and {@code docs/*.md} ({@link DocBlocks}), page by page, each page's blocks
 * as one bash script ({@code set -euo pipefail}: every command must exit 0), in a fresh working
 * folder, so that the default base {@code data} is new. {@code scripts/s3}, {@code scripts/kafka},
 * {@code scripts/cluster} and {@code scripts/flink} start the servers the pages name, on their
 * default ports; whatever a page leaves running is stopped at the end. A page that starts only a
 * Kafka broker runs beside the others, whose servers use other ports ({@link #onlyKafka}).
 *
 * <p>Adapted, and nothing else: the paths {@code scripts/...} and {@code jobs/target/...} name the
 * repository's (the scripts keep their installations there, the cluster's under {@link
 * ClusterInstallationLock}); the S3 server keeps its objects and the Kafka broker its installation
 * and topics in the working folder ({@code FLINKSS_S3_DATA_DIR}, {@code FLINKSS_KAFKA_HOME}), so
 * that each run starts from an empty bucket and no topics; {@code --run-for <any>} becomes {@code
 * --run-for 3s}, enough to show that the run serves what the page says.
 *
 * <p>It needs ports 8081, 6123 (Flink), 9000 (S3Proxy), 9092 and 10092 (Kafka) and curl, and skips
 * itself, saying why, without them. Tagged {@code cluster}, it runs after the other integration
 * tests, one at a time with the other cluster tests.
 */
@Tag("ports")
@Tag("cluster")
class DocPortsCommandsITCase {

    private static final Path ROOT = ProjectScripts.ROOT;
    private static final Duration PAGE_TIMEOUT = Duration.ofMinutes(20);
    private static final Map<Integer, String> PORTS =
            Map.of(
                    8081, "Flink's REST API",
                    6123, "the JobManager's RPC",
                    9000, "S3Proxy",
                    9092, "the Kafka broker",
                    10092, "the Kafka controller");

    /** {@code scripts/} or {@code jobs/target/} where a path starts. */
    private static final Pattern REPOSITORY_PATH =
            Pattern.compile("(?<![\\w./-])(scripts/|jobs/target/)");

    /** The scripts that start servers, each stopped after a page. */
    private static final List<String> SERVERS = List.of("cluster", "kafka", "s3");

    private static final Pattern RUN_FOR = Pattern.compile("--run-for\\s+\\S+");

    /** What starts a server on Flink's or S3Proxy's ports, or uses the cluster installation. */
    private static final Pattern OTHER_SERVERS =
            Pattern.compile("scripts/(cluster|flink|s3)\\b|--web-ui|s3://|:8081|:9000");

    @TempDir Path dir;

    @Test
    void theCommandsThatStartServersRunAsWritten() throws Exception {
        Map<Path, List<DocBlocks.Block>> pages = new LinkedHashMap<>();
        for (DocBlocks.Block block : DocBlocks.all(DocBlocks.Kind.PORTS)) {
            pages.computeIfAbsent(block.page(), p -> new ArrayList<>()).add(block);
        }
        assertThat(pages).as("pages with ports blocks").isNotEmpty();
        try (ClusterInstallationLock held =
                ClusterInstallationLock.acquire("DocPortsCommandsITCase")) {
            assumeTrue(onPath("curl"), "scripts/cluster needs curl (apt-get install curl)");
            for (Map.Entry<Integer, String> port : PORTS.entrySet()) {
                assumeTrue(
                        ProjectScripts.isFree(port.getKey()),
                        "port " + port.getKey() + " (" + port.getValue() + ") is taken");
            }
            // The pages that start only a Kafka broker run beside the others (one at a time
            // among themselves): no other page starts anything on the broker's ports, and theirs
            // never use Flink's, S3Proxy's or the cluster installation. The kafka page is about a
            // third of this test's time.
            ExecutorService beside = Executors.newSingleThreadExecutor();
            try {
                List<Future<?>> besideRuns = new ArrayList<>();
                int n = 0;
                for (Map.Entry<Path, List<DocBlocks.Block>> page : pages.entrySet()) {
                    Path work =
                            dir.resolve(String.format("%02d-%s", ++n, page.getKey().getFileName()));
                    if (onlyKafka(page.getValue())) {
                        besideRuns.add(
                                beside.submit(
                                        () -> {
                                            runPageAndStopServers(page.getValue(), work);
                                            return null;
                                        }));
                    } else {
                        runPageAndStopServers(page.getValue(), work);
                    }
                }
                for (Future<?> run : besideRuns) {
                    awaitPage(run);
                }
            } finally {
                // A failed page above must not leave one beside it running past the test.
                beside.shutdown();
                beside.awaitTermination(PAGE_TIMEOUT.toMinutes() + 3, TimeUnit.MINUTES);
            }
        }
    }

    /**
     * Whether a page's blocks start a Kafka broker (scripts/kafka) and no other server: no cluster,
     * no S3Proxy, no web UI (Flink's REST port).
     */
    static boolean onlyKafka(List<DocBlocks.Block> blocks) {
        List<String> lines = blocks.stream().flatMap(b -> b.lines().stream()).toList();
        return lines.stream().anyMatch(l -> l.contains("scripts/kafka"))
                && lines.stream().noneMatch(l -> OTHER_SERVERS.matcher(l).find());
    }

    private void runPageAndStopServers(List<DocBlocks.Block> blocks, Path work) throws Exception {
        ProjectScripts scripts = scripts(work);
        try {
            runPage(blocks, work, scripts);
        } finally {
            // A page beside the others stops only its broker (its own installation, in its
            // folder): scripts/s3 and scripts/cluster keep one record of what runs, the
            // repository's, so their stop would end the servers of the page running meanwhile.
            stopServers(scripts, onlyKafka(blocks) ? List.of("kafka") : SERVERS);
        }
    }

    /** Waits for a page run beside the others; its failure is this test's. */
    private static void awaitPage(Future<?> run) throws Exception {
        try {
            run.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw (Exception) e.getCause();
        }
    }

    private void runPage(List<DocBlocks.Block> blocks, Path work, ProjectScripts scripts)
            throws Exception {
        Files.createDirectories(work);
        // The embedded runs read flink-conf/ from the working folder, as from the repository's.
        Files.createSymbolicLink(work.resolve("flink-conf"), ROOT.resolve("flink-conf"));
        StringBuilder script = new StringBuilder();
        script.append("set -euo pipefail -x\n");
        script.append("trap 'echo \"doc-test: exit $? at $BASH_COMMAND\" >&2' ERR\n");
        for (DocBlocks.Block block : blocks) {
            script.append("# ").append(block.where()).append('\n');
            for (String line : block.lines()) {
                script.append(shortRuns(repositoryPaths(line))).append('\n');
            }
        }
        Path file = work.resolve("page.sh");
        Files.writeString(file, script);
        ProcessBuilder builder = scripts.builder("bash", file.toString()).directory(work.toFile());
        Path log = work.resolve("page.log");
        long started = System.nanoTime();
        Process process = builder.redirectOutput(log.toFile()).start();
        boolean ended = process.waitFor(PAGE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        if (!ended) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
        String where = blocks.get(0).where();
        String output = ProjectScripts.read(log);
        System.out.printf("[%s] %.1f s%n%s%n", where, (System.nanoTime() - started) / 1e9, output);
        assertThat(ended).as("%s did not end within %s:\n%s", where, PAGE_TIMEOUT, output).isTrue();
        assertThat(process.exitValue()).as("the ports blocks of %s:\n%s", where, output).isZero();
    }

    /**
     * The line with {@code --run-for <any>} made {@code --run-for 3s}, as ReadmeCommandsITCase
     * does.
     */
    static String shortRuns(String line) {
        return RUN_FOR.matcher(line).replaceAll("--run-for 3s");
    }

    /** The line with the repository's scripts and jars named by their absolute paths. */
    static String repositoryPaths(String line) {
        Matcher path = REPOSITORY_PATH.matcher(line);
        return path.replaceAll(m -> Matcher.quoteReplacement(ROOT + "/" + m.group(1)));
    }

    private static ProjectScripts scripts(Path work) {
        return new ProjectScripts(work.resolve("scripts-logs"), "DocPortsCommandsITCase")
                .env("FLINKSS_S3_DATA_DIR", work.resolve("s3-data").toString())
                .env("FLINKSS_KAFKA_HOME", work.resolve("kafka").toString());
    }

    /** Stops what a page left running (each script stops only what it started and recorded). */
    private static void stopServers(ProjectScripts scripts, List<String> servers) {
        for (String server : servers) {
            scripts.script(Duration.ofMinutes(2), server, "stop");
        }
    }

    private static boolean onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Paths.get(dir, command))) {
                return true;
            }
        }
        return false;
    }
}
