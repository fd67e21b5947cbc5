package org.flinkss.jobs.scripts;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.testutils.ProjectScripts;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code scripts/flinkss} chooses the JIT and the collector by how long the run lasts: C1 only and
 * the serial collector for a run that stops by itself (the available-now trigger, the default, or
 * once; and every other command), unless {@code JAVA_OPTS} names a collector; tiered with late C2
 * and the JVM's default collector for one that keeps going ({@code --trigger processing-time=<d>}
 * or {@code continuous}, in either option spelling), and what {@code FLINKSS_JIT} says when it is
 * set. Read from the JVM the script starts ({@code -XX:+PrintFlagsFinal} through {@code
 * JAVA_OPTS}), on commands that print their help and exit. And the class-data archive of a jar
 * reached through a symbolic link is the one of its real path.
 */
class FlinkssJitITCase {

    private static final Duration TIMEOUT = Duration.ofMinutes(3);
    private static final Pattern FLAG =
            Pattern.compile(
                    "^\\s*(?:intx|bool) (\\w+)\\s+= (\\w+)\\s+\\{[^}]*\\} \\{([^}]*)\\}",
                    Pattern.MULTILINE);

    @TempDir Path work;

    @TempDir static Path jarFolder;
    private static Path jar;

    @BeforeAll
    static void aJarWithAnArchiveItCannotUse() throws IOException {
        Path built = ProjectScripts.ROOT.resolve("jobs/target/flinkss-jobs.jar");
        jar = jarFolder.resolve("flinkss-jobs.jar");
        try {
            Files.createLink(jar, built);
        } catch (IOException | UnsupportedOperationException e) {
            Files.copy(built, jar);
        }
        Files.createFile(jarFolder.resolve("flinkss-jobs.jsa"));
        Files.writeString(
                jarFolder.resolve("flinkss-jobs.jsa.stamp"),
                jar.toRealPath()
                        + " "
                        + Files.size(jar)
                        + " "
                        + Files.getLastModifiedTime(jar).toMillis() / 1000
                        + "\n");
    }

    @Test
    void aRunThatStopsByItselfGetsC1Only() {
        assertC1Only(flags(null, "run", "bronze", "--help"));
        assertC1Only(flags(null, "run", "bronze", "--trigger", "available-now", "--help"));
        assertC1Only(flags(null, "run", "bronze", "--trigger=once", "--help"));
        assertC1Only(flags(null, "--version"));
    }

    @Test
    void aRunThatKeepsGoingGetsTieredWithLateC2() {
        assertTiered(flags(null, "run", "bronze", "--trigger", "processing-time=10s", "--help"));
        assertTiered(flags(null, "run", "bronze", "--trigger=continuous", "--help"));
        assertTiered(flags(null, "sql", "--trigger", "real-time", "--help"));
        assertTiered(flags(null, "sql", "--trigger=real-time=1s", "--help"));
    }

    @Test
    void aCollectorInJavaOptsReplacesTheSerialOne() {
        String flags =
                scripts(null)
                        .env("JAVA_OPTS", "-XX:+PrintFlagsFinal -XX:+UseParallelGC")
                        .script(TIMEOUT, "flinkss", "run", "bronze", "--help")
                        .assertSuccess("scripts/flinkss run bronze --help")
                        .output();
        assertThat(flag(flags, "UseParallelGC")).contains("true command line");
        assertThat(flag(flags, "UseSerialGC")).contains("false default");
        assertThat(flag(flags, "TieredStopAtLevel")).contains("1 command line");
    }

    @Test
    void flinkssJitChoosesForAnyRunAndAWrongValueIsRefused() {
        assertTiered(flags("tiered", "run", "bronze", "--help"));
        assertC1Only(flags("c1", "run", "bronze", "--trigger", "continuous", "--help"));

        ProjectScripts.Result wrong =
                scripts("c2").script(TIMEOUT, "flinkss", "run", "bronze", "--help");
        assertThat(wrong.code()).isEqualTo(2);
        assertThat(wrong.output())
                .contains("FLINKSS_JIT=c2 is not c1, tiered or auto (the default)");
    }

    @Test
    void aJarReachedThroughALinkUsesTheArchiveOfItsRealPath() throws IOException {
        // A working folder whose jobs/ links to the repository's (as docs tests and users make):
        // the script must find the archive recorded for the jar's real path, not make one for the
        // link's (and the real path's next run one again for its own).
        Path stamp = jarFolder.resolve("flinkss-jobs.jsa.stamp");
        String recorded = Files.readString(stamp);
        Path link = Files.createSymbolicLink(work.resolve("linked"), jarFolder);

        ProjectScripts.Result run =
                new ProjectScripts(work, "flinkss-link")
                        .env("FLINKSS_JAR", link.resolve("flinkss-jobs.jar").toString())
                        .script(TIMEOUT, "flinkss", "--version")
                        .assertSuccess("scripts/flinkss --version through " + link);

        assertThat(run.output()).doesNotContain("making the class-data archive");
        assertThat(Files.readString(stamp)).isEqualTo(recorded);
    }

    private static void assertC1Only(String flags) {
        assertThat(flag(flags, "TieredStopAtLevel")).contains("1 command line");
        assertThat(flag(flags, "Tier4InvocationThreshold")).contains("5000 default");
        assertThat(flag(flags, "UseSerialGC")).contains("true command line");
    }

    private static void assertTiered(String flags) {
        assertThat(flag(flags, "TieredStopAtLevel")).contains("4 default");
        assertThat(flag(flags, "Tier4InvocationThreshold")).contains("50000 command line");
        assertThat(flag(flags, "UseSerialGC")).contains("false default");
    }

    /** The value of a number or boolean flag and where it came from, e.g. "1 command line". */
    private static Optional<String> flag(String flags, String name) {
        Matcher m = FLAG.matcher(flags);
        while (m.find()) {
            if (m.group(1).equals(name)) {
                return Optional.of(m.group(2) + " " + m.group(3));
            }
        }
        return Optional.empty();
    }

    private String flags(String jit, String... args) {
        return scripts(jit)
                .env("JAVA_OPTS", "-XX:+PrintFlagsFinal")
                .script(TIMEOUT, "flinkss", args)
                .assertSuccess("scripts/flinkss " + String.join(" ", args))
                .output();
    }

    private ProjectScripts scripts(String jit) {
        return new ProjectScripts(work, "flinkss-jit")
                .env("FLINKSS_JAR", jar.toString())
                .env("FLINKSS_JIT", jit == null ? "" : jit);
    }
}
