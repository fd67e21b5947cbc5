package org.flinkss.runtime.testing;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.storage.Storage;
import org.flinkss.testutils.ProjectScripts;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Comparator;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * A real S3 server for a test class: {@code scripts/s3 start} (S3Proxy, its filesystem backend) on
 * a free port with its own data folder under {@code target/<name>} of the module whose tests run,
 * and this JVM's Flink file systems pointed at it ({@link Storage#initialize}: endpoint, path-style
 * access, the local default credentials of {@code flink-conf/config.yaml}). {@link #close} stops
 * only that server.
 */
public final class S3TestServer implements AutoCloseable {

    public static final String ACCESS_KEY = "flinkss-local";
    public static final String SECRET_KEY = "flinkss-local-secret";

    private final java.nio.file.Path work;
    private final ProjectScripts scripts;
    private final int port;
    private boolean running;

    private S3TestServer(java.nio.file.Path work, ProjectScripts scripts, int port) {
        this.work = work;
        this.scripts = scripts;
        this.port = port;
    }

    /**
     * One S3Proxy for a test class: {@code @RegisterExtension static final S3TestServer.PerClass S3
     * = new S3TestServer.PerClass("name");}, started before its tests and stopped after them; each
     * test is reported as skipped, with the reason, when curl (which scripts/s3 needs) is missing.
     */
    public static final class PerClass
            implements org.junit.jupiter.api.extension.BeforeAllCallback,
                    org.junit.jupiter.api.extension.AfterAllCallback,
                    org.junit.jupiter.api.extension.BeforeEachCallback {
        private final String name;
        private S3TestServer server;

        public PerClass(String name) {
            this.name = name;
        }

        @Override
        public void beforeAll(org.junit.jupiter.api.extension.ExtensionContext context) {
            server = start(name);
        }

        @Override
        public void afterAll(org.junit.jupiter.api.extension.ExtensionContext context) {
            if (server != null) {
                server.close();
                server = null;
            }
        }

        @Override
        public void beforeEach(org.junit.jupiter.api.extension.ExtensionContext context) {
            org.junit.jupiter.api.Assumptions.assumeTrue(
                    server != null,
                    context.getRequiredTestClass().getSimpleName()
                            + " skipped: scripts/s3 needs curl (apt-get install curl)");
        }

        public S3TestServer server() {
            return server;
        }
    }

    /** Starts S3Proxy, or returns null when curl (which scripts/s3 needs) is missing. */
    public static S3TestServer start(String name) {
        return start(name, "filesystem");
    }

    /**
     * Starts S3Proxy with a backend of {@code scripts/s3 start --backend} ({@code filesystem}, or
     * {@code transient}: the objects in the server's memory, {@link #objectFile} meaningless), or
     * returns null when curl is missing.
     */
    public static S3TestServer start(String name, String backend) {
        if (!ProjectScripts.onPath("curl")) {
            return null;
        }
        // The module whose tests run: Maven starts test JVMs in its folder.
        java.nio.file.Path work = Paths.get("target").toAbsolutePath().resolve(name);
        deleteRecursively(work.resolve("s3-data"));
        try {
            Files.createDirectories(work);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ProjectScripts scripts =
                new ProjectScripts(work, name)
                        .env("FLINKSS_S3_HOME", work.resolve("s3").toString())
                        // The local default credentials of flink-conf/config.yaml, not the
                        // caller's.
                        .env("AWS_ACCESS_KEY_ID", "")
                        .env("AWS_SECRET_ACCESS_KEY", "");
        if ("transient".equals(backend) && System.getenv("FLINKSS_S3_HEAP") == null) {
            scripts.env("FLINKSS_S3_HEAP", "1g"); // every object in the server's heap
        }
        int port = ProjectScripts.freePort();
        S3TestServer server = new S3TestServer(work, scripts, port);
        server.running = true;
        scripts.script(
                        Duration.ofMinutes(5),
                        "s3",
                        "start",
                        "--port",
                        String.valueOf(port),
                        "--data-dir",
                        work.resolve("s3-data").toString(),
                        "--backend",
                        backend)
                .assertSuccess("scripts/s3 start");
        Storage.initialize(server.flinkConfiguration());
        return server;
    }

    /** The s3.* keys a Flink process needs to reach this server. */
    public Configuration flinkConfiguration() {
        Configuration conf = new Configuration();
        conf.setString("s3.endpoint", endpoint());
        conf.setString("s3.path.style.access", "true");
        conf.setString("s3.access-key", ACCESS_KEY);
        conf.setString("s3.secret-key", SECRET_KEY);
        return conf;
    }

    public String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    /** A fresh prefix in the bucket, {@code s3://flinkss/<test>-<random>}. */
    public Path freshPrefix(String test) {
        return new Path(
                "s3://flinkss/" + test + "-" + UUID.randomUUID().toString().substring(0, 8));
    }

    /** The local file that holds an object (the filesystem backend keeps one file per object). */
    public java.nio.file.Path objectFile(Path object) {
        return work.resolve("s3-data")
                .resolve(object.toUri().getHost())
                .resolve(object.toUri().getPath().substring(1));
    }

    @Override
    public void close() {
        if (running) {
            running = false;
            scripts.script(Duration.ofMinutes(1), "s3", "stop");
        }
    }

    public static void deleteRecursively(java.nio.file.Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<java.nio.file.Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
