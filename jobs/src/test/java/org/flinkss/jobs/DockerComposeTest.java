package org.flinkss.jobs;

import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.w3c.dom.Document;

import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathFactory;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code docker/docker-compose.yml} parses and runs the Flink version the project builds against;
 * with Debian's {@code docker-compose} on the PATH, Compose itself accepts the file ({@code config
 * -q}, offline: no Docker engine needed).
 */
class DockerComposeTest {

    private static final Path ROOT = projectRoot();
    private static final Path COMPOSE = ROOT.resolve("docker/docker-compose.yml");

    @Test
    void everyFlinkImageIsTheBuildsFlinkVersion() throws Exception {
        String flinkVersion = pomProperty(ROOT.resolve("pom.xml"), "flink.version");
        assertThat(flinkVersion).as("flink.version in pom.xml").isNotBlank();

        Map<?, ?> compose =
                (Map<?, ?>)
                        new Load(LoadSettings.builder().build())
                                .loadFromString(Files.readString(COMPOSE, StandardCharsets.UTF_8));
        List<String> images = new ArrayList<>();
        collectImages(compose, images);
        List<String> flinkImages = images.stream().filter(i -> i.startsWith("flink:")).toList();

        assertThat(flinkImages)
                .as("flink images in %s", COMPOSE)
                .isNotEmpty()
                .allSatisfy(
                        image ->
                                assertThat(image.substring("flink:".length()))
                                        .as(
                                                "tag of %s (pom.xml has flink.version %s)",
                                                image, flinkVersion)
                                        .matches(Pattern.quote(flinkVersion) + "(-.*)?"));
        // Each Flink service gets its image, directly or through the x-flink anchor (<<: *flink).
        Map<?, ?> services = (Map<?, ?>) compose.get("services");
        for (String service : List.of("jobmanager", "taskmanager-1", "taskmanager-2", "client")) {
            assertThat(imageOf((Map<?, ?>) services.get(service)))
                    .as("image of service %s", service)
                    .isIn(flinkImages);
        }
    }

    @Test
    void theClusterScriptsAndTheDockerLibPinTheSameFlinkVersion() throws Exception {
        String flinkVersion = pomProperty(ROOT.resolve("pom.xml"), "flink.version");
        assertThat(pomProperty(ROOT.resolve("scripts/flink-dist/pom.xml"), "flink.version"))
                .isEqualTo(flinkVersion);
        assertThat(pomProperty(ROOT.resolve("docker/lib/pom.xml"), "flink.version"))
                .isEqualTo(flinkVersion);
    }

    @Test
    void dockerComposeAcceptsTheFile() throws Exception {
        Path binary = onPath("docker-compose");
        assumeTrue(
                binary != null,
                "docker-compose is not on the PATH (Debian: apt-get install docker-compose): not"
                        + " validated");
        Path output = Files.createTempFile("docker-compose-config", ".log");
        try {
            Process process =
                    new ProcessBuilder(binary.toString(), "-f", COMPOSE.toString(), "config", "-q")
                            .directory(ROOT.toFile())
                            .redirectErrorStream(true)
                            .redirectOutput(output.toFile())
                            .start();
            assertThat(process.waitFor(2, TimeUnit.MINUTES))
                    .as("docker-compose config -q ended")
                    .isTrue();
            assertThat(process.exitValue())
                    .as(
                            "docker-compose -f %s config -q said:%n%s",
                            COMPOSE, Files.readString(output, StandardCharsets.UTF_8))
                    .isZero();
        } finally {
            Files.deleteIfExists(output);
        }
    }

    private static void collectImages(Object node, List<String> images) {
        if (node instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if ("image".equals(e.getKey()) && e.getValue() instanceof String image) {
                    images.add(image);
                } else {
                    collectImages(e.getValue(), images);
                }
            }
        } else if (node instanceof List<?> list) {
            list.forEach(item -> collectImages(item, images));
        }
    }

    private static Object imageOf(Map<?, ?> service) {
        if (service.get("image") != null) {
            return service.get("image");
        }
        // snakeyaml-engine (YAML 1.2) keeps a merge key as a plain "<<" entry.
        Object merged = service.get("<<");
        return merged instanceof Map<?, ?> m ? m.get("image") : null;
    }

    private static String pomProperty(Path pom, String name) throws Exception {
        Document doc =
                DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
        return XPathFactory.newInstance()
                .newXPath()
                .evaluate(
                        "/*[local-name()='project']/*[local-name()='properties']/*[local-name()='"
                                + name
                                + "']",
                        doc)
                .trim();
    }

    private static Path onPath(String command) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = Paths.get(dir, command);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    private static Path projectRoot() {
        for (Path d = Paths.get("").toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("docker/docker-compose.yml"))
                    && Files.isRegularFile(d.resolve("pom.xml"))) {
                return d;
            }
        }
        throw new IllegalStateException(
                new IOException(
                        "no project root (a folder with docker/docker-compose.yml) above "
                                + Paths.get("").toAbsolutePath()));
    }
}
