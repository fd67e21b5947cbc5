package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;

import org.flinkss.runtime.QueryException;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Optional;

/**
 * Where an embedded run's Flink configuration (a {@code config.yaml}, the project's {@code
 * flink-conf/config.yaml}) comes from, the same from any working directory, first found wins:
 *
 * <ol>
 *   <li>the folder the run was given ({@code RunOptions.flinkConfDir});
 *   <li>{@code $FLINK_CONF_DIR}, as Flink's own scripts do;
 *   <li>{@code ./flink-conf}, from the repository's root;
 *   <li>a {@code flink-conf} folder beside the running code: the jar's folder or one of its parents
 *       ({@code jobs/target/flinkss-jobs.jar} finds the repository's), so that the jar run from
 *       elsewhere reads the file it was built next to;
 *   <li>the copy of the repository's file built into the jar.
 * </ol>
 *
 * <p>Every deployment default (state backend, retention, restart strategy, ...) is in that file;
 * the code sets only what belongs to one query or one run ({@link JobConfiguration}).
 */
@Internal
public final class FlinkConfFile {

    static final String FILE = "config.yaml";
    static final String FOLDER = "flink-conf";

    /** The repository's {@code flink-conf/config.yaml}, copied into the jar by the build. */
    static final String RESOURCE = "/org/flinkss/runtime/runner/impl/flink-conf/config.yaml";

    /** How many parents of the code's folder are looked at for a {@code flink-conf} folder. */
    private static final int PARENTS_OF_CODE = 3;

    /** The folder with the file; null for the copy built into the jar. */
    @Nullable private final Path dir;

    private final String how;

    private FlinkConfFile(@Nullable Path dir, String how) {
        this.dir = dir == null ? null : dir.toAbsolutePath().normalize();
        this.how = how;
    }

    /** The configuration of this process: its environment, working directory and code. */
    public static FlinkConfFile locate(@Nullable Path given) {
        return locate(
                given, System.getenv("FLINK_CONF_DIR"), Paths.get("").toAbsolutePath(), code());
    }

    static FlinkConfFile locate(
            @Nullable Path given,
            @Nullable String flinkConfDir,
            Path workingDir,
            @Nullable Path codeLocation) {
        if (given != null) {
            if (!Files.isRegularFile(given.resolve(FILE))) {
                throw new QueryException(
                        "the Flink configuration folder "
                                + given.toAbsolutePath().normalize()
                                + " has no "
                                + FILE
                                + ": give a folder with Flink's "
                                + FILE
                                + " (the repository's is flink-conf/)");
            }
            return new FlinkConfFile(given, "given");
        }
        String skipped = "";
        if (flinkConfDir != null && !flinkConfDir.isBlank()) {
            Path env = workingDir.resolve(flinkConfDir);
            if (Files.isRegularFile(env.resolve(FILE))) {
                return new FlinkConfFile(env, "$FLINK_CONF_DIR");
            }
            skipped = "; $FLINK_CONF_DIR=" + flinkConfDir + " has no " + FILE;
        }
        Path local = workingDir.resolve(FOLDER);
        if (Files.isRegularFile(local.resolve(FILE))) {
            return new FlinkConfFile(local, "./" + FOLDER + skipped);
        }
        if (codeLocation != null) {
            Path folder = Files.isDirectory(codeLocation) ? codeLocation : codeLocation.getParent();
            for (int up = 0; folder != null && up <= PARENTS_OF_CODE; up++) {
                Path beside = folder.resolve(FOLDER);
                if (Files.isRegularFile(beside.resolve(FILE))) {
                    return new FlinkConfFile(beside, "beside " + codeLocation + skipped);
                }
                folder = folder.getParent();
            }
        }
        return new FlinkConfFile(
                null,
                "no "
                        + FOLDER
                        + "/"
                        + FILE
                        + " in $FLINK_CONF_DIR, the working directory or beside the jar"
                        + skipped);
    }

    /** The file read; empty for the copy built into the jar. */
    public Optional<Path> file() {
        return Optional.ofNullable(dir).map(d -> d.resolve(FILE));
    }

    /** One line: which file, and how it was found. */
    public String describe() {
        return dir == null
                ? "flink configuration: the copy of flink-conf/"
                        + FILE
                        + " built into the jar ("
                        + how
                        + ")"
                : "flink configuration: " + dir.resolve(FILE) + " (" + how + ")";
    }

    /**
     * Reads the file. The copy built into the jar is first written into {@code scratch}, a folder
     * of the run's own, since Flink reads a configuration from a folder.
     */
    public Configuration load(Path scratch) {
        Path folder = dir;
        if (folder == null) {
            folder = scratch.resolve(FOLDER);
            try (InputStream in = FlinkConfFile.class.getResourceAsStream(RESOURCE)) {
                if (in == null) {
                    throw new IllegalStateException(
                            "the jar has no " + RESOURCE + ": rebuild it with mvn package");
                }
                Files.createDirectories(folder);
                Files.copy(in, folder.resolve(FILE), StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException e) {
                throw new UncheckedIOException(
                        "cannot write the Flink configuration into " + folder + ": " + e, e);
            }
        }
        return GlobalConfiguration.loadConfiguration(folder.toString());
    }

    /** The jar (or classes folder) this class was loaded from, if known. */
    @Nullable
    private static Path code() {
        try {
            var source = FlinkConfFile.class.getProtectionDomain().getCodeSource();
            return source == null ? null : Paths.get(source.getLocation().toURI());
        } catch (URISyntaxException | RuntimeException e) {
            return null;
        }
    }
}
