package org.flinkss.jobs.cluster;

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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code docker/docker-compose.yml} (images built by {@code scripts/docker-images}) and {@code
 * docker/docker-compose.hub.yml} (the official images) parse and run the versions the project
 * builds against; with Debian's {@code docker-compose} on the PATH, Compose itself accepts both
 * ({@code config -q}, offline: no Docker engine needed). An image is written {@code
 * ${VARIABLE:-default}} so users can point it elsewhere; the default is what is checked.
 */
class DockerComposeTest {

    private static final Path ROOT = projectRoot();
    private static final Path COMPOSE = ROOT.resolve("docker/docker-compose.yml");
    private static final Path HUB = ROOT.resolve("docker/docker-compose.hub.yml");
    private static final Path VERSIONS = ROOT.resolve("versions/pom.xml");
    private static final Pattern DEFAULT = Pattern.compile("\\$\\{[A-Z0-9_]+:-([^}]*)}");

    @Test
    void everyFlinkImageIsTheBuildsFlinkVersion() throws Exception {
        String flinkVersion = pomProperty(VERSIONS, "flink.version");
        assertThat(flinkVersion).as("flink.version in versions/pom.xml").isNotBlank();

        for (Path file : List.of(COMPOSE, HUB)) {
            Map<?, ?> compose = load(file);
            List<String> images = new ArrayList<>();
            collectImages(compose, images);
            // flink:<tag> on Docker Hub, <prefix>/flink:<tag> built by scripts/docker-images.
            List<String> flinkImages =
                    images.stream()
                            .filter(i -> i.startsWith("flink:") || i.contains("/flink:"))
                            .toList();

            assertThat(flinkImages)
                    .as("flink images in %s", file)
                    .isNotEmpty()
                    .allSatisfy(
                            image ->
                                    assertThat(image.substring(image.indexOf(':') + 1))
                                            .as(
                                                    "tag of %s (versions/pom.xml has flink.version"
                                                            + " %s)",
                                                    image, flinkVersion)
                                            .matches(Pattern.quote(flinkVersion) + "(-.*)?"));
            // Each Flink service gets its image, directly or through the x-flink anchor (<<:
            // *flink).
            Map<?, ?> services = (Map<?, ?>) compose.get("services");
            for (String service : List.of("jobmanager", "taskmanager-1", "taskmanager-2")) {
                assertThat(imageOf((Map<?, ?>) services.get(service)))
                        .as("image of service %s in %s", service, file)
                        .isIn(flinkImages);
            }
        }
    }

    @Test
    void theImagesBuiltHereCarryTheVersionsTheScriptsAssemble() throws Exception {
        Map<?, ?> services = (Map<?, ?>) load(COMPOSE).get("services");
        assertThat(imageOf((Map<?, ?>) services.get("kafka")))
                .isEqualTo("flinkss/kafka:" + pomProperty(VERSIONS, "kafka.broker.version"));
        assertThat(imageOf((Map<?, ?>) services.get("s3proxy")))
                .isEqualTo("flinkss/s3proxy:" + pomProperty(VERSIONS, "s3proxy.version"));
        String projectVersion =
                XPathFactory.newInstance()
                        .newXPath()
                        .evaluate(
                                "/*[local-name()='project']/*[local-name()='version']",
                                DocumentBuilderFactory.newInstance()
                                        .newDocumentBuilder()
                                        .parse(ROOT.resolve("pom.xml").toFile()))
                        .trim();
        assertThat(imageOf((Map<?, ?>) services.get("client")))
                .isEqualTo("flinkss/client:" + projectVersion);
    }

    @Test
    void dockerComposeAcceptsTheFile() throws Exception {
        Path binary = onPath("docker-compose");
        assumeTrue(
                binary != null,
                "docker-compose is not on the PATH (Debian: apt-get install docker-compose): not"
                        + " validated");
        configQuiet(binary, COMPOSE.toString());
        configQuiet(binary, COMPOSE.toString(), "-f", HUB.toString());
    }

    private static void configQuiet(Path binary, String file, String... more) throws Exception {
        Path output = Files.createTempFile("docker-compose-config", ".log");
        try {
            List<String> command = new ArrayList<>(List.of(binary.toString(), "-f", file));
            command.addAll(List.of(more));
            command.addAll(List.of("config", "-q"));
            Process process =
                    new ProcessBuilder(command)
                            .directory(ROOT.toFile())
                            .redirectErrorStream(true)
                            .redirectOutput(output.toFile())
                            .start();
            assertThat(process.waitFor(2, TimeUnit.MINUTES))
                    .as("docker-compose config -q ended")
                    .isTrue();
            assertThat(process.exitValue())
                    .as(
                            "%s said:%n%s",
                            String.join(" ", command),
                            Files.readString(output, StandardCharsets.UTF_8))
                    .isZero();
        } finally {
            Files.deleteIfExists(output);
        }
    }

    private static Map<?, ?> load(Path file) throws IOException {
        return (Map<?, ?>)
                new Load(LoadSettings.builder().build())
                        .loadFromString(Files.readString(file, StandardCharsets.UTF_8));
    }

    /** {@code ${VAR:-default}} as its default, anything else as it is. */
    private static String withDefaults(String value) {
        return DEFAULT.matcher(value).replaceAll(m -> Matcher.quoteReplacement(m.group(1)));
    }

    private static void collectImages(Object node, List<String> images) {
        if (node instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if ("image".equals(e.getKey()) && e.getValue() instanceof String image) {
                    images.add(withDefaults(image));
                } else {
                    collectImages(e.getValue(), images);
                }
            }
        } else if (node instanceof List<?> list) {
            list.forEach(item -> collectImages(item, images));
        }
    }

    private static Object imageOf(Map<?, ?> service) {
        if (service.get("image") instanceof String image) {
            return withDefaults(image);
        }
        // snakeyaml-engine (YAML 1.2) keeps a merge key as a plain "<<" entry.
        Object merged = service.get("<<");
        return merged instanceof Map<?, ?> m && m.get("image") instanceof String image
                ? withDefaults(image)
                : null;
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
