package org.flinkss.jobs.userquery;

import org.flinkss.testutils.ProjectScripts;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

/**
 * A user's jar made from sources as {@code mvn package} of {@code examples/my-first-query} makes it
 * (its classes only; the runtime is {@code provided}), without Maven: the sources compiled with
 * {@code javax.tools} against this test's class path, packed with {@code java.util.jar}. The jar
 * goes through the same {@code run --jar} path as the one Maven builds.
 */
public final class ExampleJar {

    /** The example project's sources. */
    public static final Path EXAMPLE = ProjectScripts.ROOT.resolve("examples/my-first-query");

    /** Its query's class. */
    public static final String QUERY_CLASS = "com.acme.BuysPerUser";

    private ExampleJar() {}

    /** {@code examples/my-first-query}'s main sources, as {@code dir/my-first-query.jar}. */
    public static Path build(Path dir) {
        return build(EXAMPLE.resolve("src/main/java"), dir, "my-first-query.jar");
    }

    /** The Java sources under {@code sources}, compiled and packed into {@code dir/jarName}. */
    public static Path build(Path sources, Path dir, String jarName) {
        try {
            Path classes = dir.resolve(jarName + "-classes");
            Files.createDirectories(classes);
            compile(javaFiles(sources), classes);
            Path jar = dir.resolve(jarName);
            pack(classes, jar);
            return jar;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Path> javaFiles(Path sources) throws IOException {
        try (Stream<Path> files = Files.walk(sources)) {
            return files.filter(f -> f.toString().endsWith(".java")).sorted().toList();
        }
    }

    private static void compile(List<Path> files, Path classes) throws IOException {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager fm =
                javac.getStandardFileManager(diagnostics, null, StandardCharsets.UTF_8)) {
            // The test's class path holds the runtime and Flink, as 'provided' gives them to
            // the example's build (a manifest-only jar's Class-Path is followed by javac).
            List<String> options =
                    List.of(
                            "--release",
                            "17",
                            "-classpath",
                            System.getProperty("java.class.path"),
                            "-d",
                            classes.toString());
            boolean ok =
                    javac.getTask(
                                    null,
                                    fm,
                                    diagnostics,
                                    options,
                                    null,
                                    fm.getJavaFileObjectsFromPaths(files))
                            .call();
            if (!ok) {
                StringBuilder errors = new StringBuilder("the example does not compile:");
                for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                    errors.append('\n').append(d);
                }
                throw new AssertionError(errors.toString());
            }
        }
    }

    private static void pack(Path classes, Path jar) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        try (OutputStream file = Files.newOutputStream(jar);
                JarOutputStream out = new JarOutputStream(file, manifest);
                Stream<Path> walk = Files.walk(classes)) {
            for (Path f : walk.filter(Files::isRegularFile).sorted().toList()) {
                String name = classes.relativize(f).toString().replace('\\', '/');
                out.putNextEntry(new JarEntry(name));
                Files.copy(f, out);
                out.closeEntry();
            }
        }
    }
}
