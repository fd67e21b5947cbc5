package org.flinkss.jobs;

import org.apache.flink.shaded.asm9.org.objectweb.asm.ClassReader;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.LocalEventFiles;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipFile;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 37 point 1: every class under {@code META-INF/versions/N/} of every jar the build makes is
 * the class its path names, and loads as Java loads it. A multi-release jar ({@code Multi-Release:
 * true}, the runnable jar) makes Java 17 take {@code META-INF/versions/17/X.class} instead of
 * {@code X.class}; when a dependency that relocates its classes (flink-shaded-jackson, Hadoop's
 * shaded client) leaves its versioned entries at the unrelocated path, a shaded jar picks them up
 * for another library's class: {@code run bronze} then failed on {@code 1.0E15} with {@code
 * NoClassDefFoundError: .../FastDoubleSwar (wrong name: org/apache/flink/shaded/jackson2/...)}.
 *
 * <p>The jars are those {@code mvn package} made in {@code jobs/target}; without them (a build with
 * {@code -DskipShade=true}) the test is skipped, saying so.
 */
class MultiReleaseJarsITCase {

    private static final Pattern VERSIONED =
            Pattern.compile("META-INF/versions/(\\d+)/(.+)\\.class");

    /** Doubles as Spark's JSON writer ({@code Double.toString}) and other writers write them. */
    static final List<String> SPARK_DOUBLES =
            List.of(
                    "1.0E15",
                    "1.0E-4",
                    "1.23456789E7",
                    "0.30000000000000004",
                    "4.9E-324",
                    "2.5e-1",
                    "0.1234567890123456");

    @TempDir Path dir;

    @Test
    void everyVersionedClassOfEveryJarIsTheClassItsPathNamesAndLoads() throws IOException {
        List<String> problems = new ArrayList<>();
        int checked = 0;
        int loaded = 0;
        for (String name : BuiltJars.ALL) {
            Path jar = BuiltJars.require(name);
            TreeMap<Integer, List<String>> versioned = versionedClasses(jar, problems);
            for (List<String> classes : versioned.values()) {
                checked += classes.size();
            }
            if (isMultiRelease(jar)) {
                loaded += loadAsJavaWould(jar, versioned, problems);
            }
        }
        assertThat(problems)
                .as(
                        "versioned classes that are not the class their path names (%s checked, %s"
                                + " loaded): exclude META-INF/versions/** of the dependency that"
                                + " put them there in jobs/pom.xml's shade filters",
                        checked, loaded)
                .isEmpty();
        // The runnable jar has jackson-core's, Parquet's, log4j's... versioned classes: a jar
        // without any would mean the test looked at nothing.
        assertThat(checked).isGreaterThan(20);
        assertThat(loaded).isGreaterThan(10);
    }

    @Test
    void theRunnableJarRunsBronzeOnDoublesAsSparkWritesThem() throws Exception {
        Path jar = BuiltJars.require(BuiltJars.RUNNABLE);
        // Step 1: the course's first batch and one line per double, each of them read by
        // jackson-core's fast double parser (the general path: the plain one takes no exponent).
        Path base = dir.resolve("base");
        LocalEventFiles.writeBatch(base.resolve("events"), 1, EventGenerator.events(0, 20));
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < SPARK_DOUBLES.size(); i++) {
            lines.add(
                    "{\"event_id\":"
                            + (1000 + i)
                            + ", \"user_id\":1,\"event_type\":\"view\","
                            + "\"event_ts\":\"2025-03-01T00:00:00.000Z\",\"amount\":"
                            + SPARK_DOUBLES.get(i)
                            + "}");
        }
        Files.createDirectories(base.resolve("events/batch_2"));
        Files.write(base.resolve("events/batch_2/doubles.json"), lines, StandardCharsets.UTF_8);

        // Step 2: bronze with java -jar, as a user runs it; then the table.
        String run = runJar(jar, "run", "bronze", "--base", base.toString());
        String exported =
                runJar(jar, "table", "export", "events_bronze", "--csv", "--base", base.toString());

        // Step 3: every line is a row of bronze, its amount the double the text names.
        assertThat(run).doesNotContain("NoClassDefFoundError");
        for (int i = 0; i < SPARK_DOUBLES.size(); i++) {
            assertThat(exported)
                    .as("bronze's row of event %s", 1000 + i)
                    .contains(
                            (1000 + i)
                                    + ",1,view,2025-03-01T00:00:00.000Z,"
                                    + Double.parseDouble(SPARK_DOUBLES.get(i)));
        }
    }

    private String runJar(Path jar, String... args) throws Exception {
        return BuiltJars.run(jar, dir, args);
    }

    private static boolean isMultiRelease(Path jar) throws IOException {
        try (JarFile file = new JarFile(jar.toFile())) {
            return file.isMultiRelease();
        }
    }

    /**
     * The versioned classes of the jar by version (their names as the path gives them); each whose
     * bytes name another class is a problem.
     */
    private static TreeMap<Integer, List<String>> versionedClasses(Path jar, List<String> problems)
            throws IOException {
        TreeMap<Integer, List<String>> classes = new TreeMap<>();
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            Enumeration<? extends java.util.zip.ZipEntry> entries = zip.entries();
            while (entries.hasMoreElements()) {
                java.util.zip.ZipEntry entry = entries.nextElement();
                Matcher m = VERSIONED.matcher(entry.getName());
                if (!m.matches() || m.group(2).endsWith("module-info")) {
                    continue;
                }
                String path = m.group(2);
                String named;
                try (InputStream in = zip.getInputStream(entry)) {
                    named = new ClassReader(in).getClassName();
                }
                if (!named.equals(path)) {
                    problems.add(
                            jar.getFileName() + "!/" + entry.getName() + " holds class " + named);
                }
                classes.computeIfAbsent(Integer.parseInt(m.group(1)), v -> new ArrayList<>())
                        .add(path.replace('/', '.'));
            }
        }
        return classes;
    }

    /**
     * Loads the versioned classes of each version this Java runs (up to its own) with a class
     * loader on the jar opened as Java {@code N} opens it, so that {@code META-INF/versions/N/}
     * comes first; a class whose superclass or interfaces neither the jar nor the JDK has (sqlite's
     * GraalVM native-image feature) is one only GraalVM loads, and is left out.
     */
    private static int loadAsJavaWould(
            Path jar, TreeMap<Integer, List<String>> versioned, List<String> problems)
            throws IOException {
        int loaded = 0;
        int runtime = Runtime.version().feature();
        for (var byVersion : versioned.headMap(runtime, true).entrySet()) {
            try (VersionedJarLoader loader = new VersionedJarLoader(jar, byVersion.getKey())) {
                for (String name : byVersion.getValue()) {
                    if (!loader.hasSupertypesOf(name)) {
                        continue;
                    }
                    try {
                        Class.forName(name, false, loader);
                        loaded++;
                    } catch (ClassNotFoundException | LinkageError e) {
                        problems.add(
                                jar.getFileName()
                                        + " as Java "
                                        + byVersion.getKey()
                                        + ": "
                                        + name
                                        + ": "
                                        + e);
                    }
                }
            }
        }
        return loaded;
    }

    /** Classes from one jar as Java {@code version} reads it, and from the JDK. */
    private static final class VersionedJarLoader extends ClassLoader implements AutoCloseable {
        private final JarFile jar;

        VersionedJarLoader(Path jar, int version) throws IOException {
            super("jar-as-java-" + version, ClassLoader.getPlatformClassLoader());
            this.jar =
                    new JarFile(
                            jar.toFile(),
                            true,
                            ZipFile.OPEN_READ,
                            Runtime.Version.parse(Integer.toString(version)));
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            byte[] bytes = bytesOf(name.replace('.', '/'));
            if (bytes == null) {
                throw new ClassNotFoundException(name);
            }
            return defineClass(name, bytes, 0, bytes.length);
        }

        private byte[] bytesOf(String internalName) {
            JarEntry entry = jar.getJarEntry(internalName + ".class");
            if (entry == null) {
                return null;
            }
            try (InputStream in = jar.getInputStream(entry)) {
                return in.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private boolean has(String internalName) {
            return bytesOf(internalName) != null
                    || getParent().getResource(internalName + ".class") != null;
        }

        boolean hasSupertypesOf(String name) {
            byte[] bytes = bytesOf(name.replace('.', '/'));
            if (bytes == null) {
                return false;
            }
            ClassReader reader = new ClassReader(bytes);
            TreeSet<String> supertypes = new TreeSet<>(List.of(reader.getInterfaces()));
            if (reader.getSuperName() != null) {
                supertypes.add(reader.getSuperName());
            }
            return supertypes.stream().allMatch(this::has);
        }

        @Override
        public void close() throws IOException {
            jar.close();
        }
    }
}
