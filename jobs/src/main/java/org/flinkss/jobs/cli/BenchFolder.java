package org.flinkss.jobs.cli;

import org.apache.flink.util.FileUtils;

import org.flinkss.runtime.QueryException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The benchmark's work folder. A benchmark starts from nothing, so it empties its folder first; it
 * must never delete what it did not write. It takes a folder that is new or empty and marks it as
 * its own ({@value #MARK}); in a folder it marked it deletes only what a benchmark writes there
 * ({@link #WRITTEN}), and it refuses any other folder, naming it, before anything is deleted.
 */
final class BenchFolder {

    static final String MARK = ".flinkss-bench";

    /** What a benchmark writes in its folder: the landed events, checkpoints, tables, run files. */
    static final List<String> WRITTEN = List.of("events", "_cp", "warehouse", "_tmp");

    private BenchFolder() {}

    /** Makes {@code base} an empty benchmark folder, or refuses it with what to do. */
    static void prepare(Path base) throws IOException {
        if (Files.exists(base) && !Files.isDirectory(base)) {
            throw new QueryException(
                    "bench's --base " + base + " is a file: give a new folder, or one bench made");
        }
        List<String> entries = entries(base);
        boolean ours = entries.contains(MARK);
        if (!ours && !entries.isEmpty()) {
            throw new QueryException(
                    "bench's folder "
                            + base
                            + " is not empty and bench did not make it (it holds "
                            + list(entries)
                            + "): bench empties its folder before each run, so it takes only a"
                            + " new or empty folder, or one it made; give another --base");
        }
        List<String> foreign = new ArrayList<>(entries);
        foreign.remove(MARK);
        foreign.removeAll(WRITTEN);
        if (!foreign.isEmpty()) {
            throw new QueryException(
                    "bench's folder "
                            + base
                            + " holds "
                            + list(foreign)
                            + ", which bench did not write: move it away or give another --base"
                            + " (bench deletes only "
                            + String.join(", ", WRITTEN)
                            + " there)");
        }
        for (String written : WRITTEN) {
            FileUtils.deleteFileOrDirectory(base.resolve(written).toFile());
        }
        if (!ours) {
            Files.createDirectories(base);
            Files.writeString(
                    base.resolve(MARK),
                    "A folder made by flinkss bench: each bench run deletes "
                            + String.join(", ", WRITTEN)
                            + " here first, and nothing else.\n",
                    StandardCharsets.UTF_8);
        }
    }

    private static List<String> entries(Path base) throws IOException {
        if (!Files.isDirectory(base)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(base)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private static String list(List<String> names) {
        int shown = Math.min(names.size(), 5);
        String head = String.join(", ", names.subList(0, shown));
        return names.size() > shown ? head + " and " + (names.size() - shown) + " more" : head;
    }
}
