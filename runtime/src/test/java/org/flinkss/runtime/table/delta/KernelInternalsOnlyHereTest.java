package org.flinkss.runtime.table.delta;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Delta Kernel's internals are used through {@link KernelInternals} only, so that a Kernel upgrade
 * touches one file: no other Java source of any module, main or test, names a class of {@code
 * io.delta.kernel.internal} (an import or a qualified name; a logger's name in a string is no use
 * of a class and is allowed).
 */
class KernelInternalsOnlyHereTest {

    private static final String INTERNALS = "io.delta.kernel.internal";

    private static final String ADAPTER = "KernelInternals.java";

    /**
     * Text blocks, strings, character literals and comments, taken from left to right so that a
     * comment's marks inside a string (or the reverse) are read as the tokenizer reads them.
     */
    private static final Pattern NOT_CODE =
            Pattern.compile(
                    "\"\"\"[\\s\\S]*?\"\"\""
                            + "|\"(?:\\\\.|[^\"\\\\\\n])*\""
                            + "|'(?:\\\\.|[^'\\\\\\n])*'"
                            + "|/\\*[\\s\\S]*?\\*/"
                            + "|//[^\\n]*");

    @Test
    void noSourceButTheAdapterNamesKernelsInternals() throws IOException {
        Path root = projectRoot();
        List<Path> sources;
        try (Stream<Path> files = Files.walk(root)) {
            sources =
                    files.filter(f -> f.toString().endsWith(".java"))
                            .filter(f -> f.toString().contains("/src/"))
                            .filter(f -> !f.toString().contains("/target/"))
                            .toList();
        }

        List<String> offenders =
                sources.stream()
                        .filter(f -> !f.getFileName().toString().equals(ADAPTER))
                        .filter(f -> code(f).contains(INTERNALS))
                        .map(f -> root.relativize(f).toString())
                        .toList();

        assertThat(sources).as("the sources scanned").hasSizeGreaterThan(200);
        assertThat(sources)
                .as("the adapter itself, which must name them")
                .anySatisfy(f -> assertThat(f.getFileName().toString()).isEqualTo(ADAPTER))
                .filteredOn(f -> f.getFileName().toString().equals(ADAPTER))
                .allSatisfy(f -> assertThat(code(f)).contains(INTERNALS));
        assertThat(offenders)
                .as(
                        "sources that use Delta Kernel's internals: go through KernelInternals"
                                + " (runtime/.../table/delta), and pin what you add in"
                                + " KernelInternalsTest")
                .isEmpty();
    }

    /** A source without its comments and string literals. */
    private static String code(Path source) {
        try {
            return NOT_CODE.matcher(Files.readString(source)).replaceAll(" ");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + source, e);
        }
    }

    /** The folder of the project's parent pom (tests run in their module's folder). */
    private static Path projectRoot() {
        Path dir = Path.of("").toAbsolutePath();
        for (Path d = dir; d != null; d = d.getParent()) {
            if (Files.isDirectory(d.resolve("runtime")) && Files.exists(d.resolve("pom.xml"))) {
                return d;
            }
        }
        throw new IllegalStateException("no project root above " + dir);
    }
}
