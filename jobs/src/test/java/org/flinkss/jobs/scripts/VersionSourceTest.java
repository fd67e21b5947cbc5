package org.flinkss.jobs.scripts;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import org.flinkss.testutils.ProjectScripts;

import javax.xml.parsers.DocumentBuilderFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Flink's, Kafka's, Hadoop's, Delta's and Spark's versions are written once, in {@code
 * versions/pom.xml}: every pom of the repository (the build's, and the ones scripts, Docker and
 * tests build on their own: {@code scripts/*-dist}, {@code docker/lib}, {@code spark-diff/oracle},
 * the Spark reader) has it at the top of its parents, sets none of its properties again, and names
 * those projects' artifacts with no version of its own.
 */
class VersionSourceTest {

    private static final Path ROOT = ProjectScripts.ROOT;
    private static final Path VERSIONS = ROOT.resolve("versions/pom.xml");
    private static final Set<String> PINNED_GROUPS =
            Set.of(
                    "org.apache.flink",
                    "org.apache.kafka",
                    "org.apache.hadoop",
                    "io.delta",
                    "org.apache.spark");

    private static Map<Path, Document> poms;

    @BeforeAll
    static void readEveryPom() throws Exception {
        poms = new LinkedHashMap<>();
        try (Stream<Path> walk = Files.walk(ROOT)) {
            for (Path pom :
                    walk.filter(p -> p.getFileName().toString().equals("pom.xml"))
                            .filter(p -> !skipped(ROOT.relativize(p)))
                            .sorted()
                            .toList()) {
                poms.put(pom, read(pom));
            }
        }
        // The build's 8 poms (spark-diff/oracle among them) and the 6 built on their own, at
        // least: a walk that finds fewer checks nothing.
        assertThat(poms)
                .hasSizeGreaterThanOrEqualTo(14)
                .containsKeys(VERSIONS, ROOT.resolve("scripts/kafka-dist/pom.xml"));
    }

    @Test
    void everyPomHasTheVersionsPomAtTheTopOfItsParents() throws Exception {
        for (Path pom : poms.keySet()) {
            assertThat(topParent(pom))
                    .as("the top parent of %s", ROOT.relativize(pom))
                    .isEqualTo(VERSIONS);
        }
    }

    @Test
    void noPomSetsAVersionTheVersionsPomSets() {
        List<String> versions = propertyNames(poms.get(VERSIONS));
        assertThat(versions).contains("flink.version", "hadoop.version", "delta.version");
        for (Map.Entry<Path, Document> pom : poms.entrySet()) {
            if (!pom.getKey().equals(VERSIONS)) {
                assertThat(propertyNames(pom.getValue()))
                        .as("properties of %s", ROOT.relativize(pom.getKey()))
                        .doesNotContainAnyElementsOf(versions);
            }
        }
    }

    @Test
    void flinkKafkaHadoopDeltaAndSparkArtifactsAreVersionedThroughItsProperties() {
        for (Map.Entry<Path, Document> pom : poms.entrySet()) {
            NodeList dependencies = pom.getValue().getElementsByTagName("dependency");
            for (int i = 0; i < dependencies.getLength(); i++) {
                Element dependency = (Element) dependencies.item(i);
                String group = child(dependency, "groupId");
                String version = child(dependency, "version");
                if (PINNED_GROUPS.contains(group) && !version.isEmpty()) {
                    assertThat(version)
                            .as(
                                    "version of %s:%s in %s",
                                    group,
                                    child(dependency, "artifactId"),
                                    ROOT.relativize(pom.getKey()))
                            .startsWith("${");
                }
            }
        }
    }

    /** Build output, installations the scripts made, caches: not the repository's poms. */
    private static boolean skipped(Path relative) {
        for (Path part : relative) {
            String name = part.toString();
            if (name.equals("target") || name.startsWith(".") || name.equals("node_modules")) {
                return true;
            }
        }
        return false;
    }

    /** Follows the parents' relative paths (Maven's default: ../pom.xml) to the last one. */
    private static Path topParent(Path pom) throws Exception {
        Path current = pom;
        for (int depth = 0; depth < 10; depth++) {
            Document doc = poms.containsKey(current) ? poms.get(current) : read(current);
            Element parent = firstChild(doc.getDocumentElement(), "parent");
            if (parent == null) {
                return current;
            }
            if (firstChild(parent, "relativePath") != null
                    && child(parent, "relativePath").isEmpty()) {
                // <relativePath/>: Maven looks the parent up in the repositories, as a project
                // outside the build (examples/) does with the project's installed versions pom.
                assertThat(child(parent, "artifactId"))
                        .as("the parent of %s, looked up in the repositories", pom)
                        .isEqualTo("flinkss-versions");
                return ROOT.resolve("versions/pom.xml");
            }
            String relative = child(parent, "relativePath");
            Path next = current.getParent().resolve(relative.isEmpty() ? "../pom.xml" : relative);
            if (Files.isDirectory(next)) {
                next = next.resolve("pom.xml");
            }
            current = next.normalize();
            assertThat(current).as("the parent of %s", pom).isRegularFile();
        }
        throw new AssertionError("the parents of " + pom + " go round");
    }

    private static List<String> propertyNames(Document pom) {
        List<String> names = new ArrayList<>();
        Element properties = firstChild(pom.getDocumentElement(), "properties");
        if (properties != null) {
            NodeList children = properties.getChildNodes();
            for (int i = 0; i < children.getLength(); i++) {
                if (children.item(i).getNodeType() == Node.ELEMENT_NODE) {
                    names.add(children.item(i).getNodeName());
                }
            }
        }
        return names;
    }

    private static Element firstChild(Element element, String name) {
        NodeList children = element.getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
            if (children.item(i) instanceof Element e && e.getTagName().equals(name)) {
                return e;
            }
        }
        return null;
    }

    private static String child(Element element, String name) {
        Element child = firstChild(element, name);
        return child == null ? "" : child.getTextContent().trim();
    }

    private static Document read(Path pom) throws Exception {
        try {
            return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
        } catch (IOException e) {
            throw new IOException("cannot read " + pom + ": " + e.getMessage(), e);
        }
    }
}
