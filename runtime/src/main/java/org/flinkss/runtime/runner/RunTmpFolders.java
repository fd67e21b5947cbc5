package org.flinkss.runtime.runner;

import org.flinkss.runtime.storage.impl.LocalDisk;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A run's temporary files: {@code <tmp root>/<query>/<run id>/} (the embedded cluster's working
 * files, RocksDB's copies among them, about 20 MB), deleted when the run ends. A killed driver
 * leaves its folder behind: the next run of the same query, or its {@code reset}, removes it, each
 * holding the query's lock, so no run of the query is using one then. Only run folders are removed
 * (their names are run ids); anything else in the query's folder is not the project's and stays.
 */
public final class RunTmpFolders {

    /** A run id ({@code UUID.randomUUID()}), the name of each run's folder. */
    private static final Pattern RUN_ID =
            Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    private RunTmpFolders() {}

    /** The folder of the run {@code runId} of {@code query}. */
    static File of(Path tmpRoot, String query, String runId) {
        return tmpRoot.resolve(query).resolve(runId).toFile();
    }

    /**
     * Removes the run folders that earlier runs of {@code query} left in {@code tmpRoot}, and the
     * query's folder if nothing else is in it. Call it only under the query's lock.
     *
     * @return how many run folders were removed
     */
    public static int removeLeftovers(Path tmpRoot, String query) {
        Path ofQuery = tmpRoot.resolve(query);
        if (!Files.isDirectory(ofQuery)) {
            return 0;
        }
        List<Path> runs;
        try (Stream<Path> children = Files.list(ofQuery)) {
            runs =
                    children.filter(
                                    c ->
                                            Files.isDirectory(c)
                                                    && RUN_ID.matcher(c.getFileName().toString())
                                                            .matches())
                            .toList();
        } catch (IOException e) {
            return 0; // unreadable: nothing of the project's can be told apart
        }
        runs.forEach(LocalDisk::deleteQuietly);
        try {
            Files.deleteIfExists(ofQuery);
        } catch (IOException e) {
            // not empty: something that is not a run's stays, with its folder
        }
        return runs.size();
    }
}
