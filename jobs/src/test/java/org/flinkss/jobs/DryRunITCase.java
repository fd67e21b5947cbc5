package org.flinkss.jobs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.testutils.ProjectScripts;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code run <query> --dry-run} (issue 35, point 5) says what the next run would do and changes
 * nothing on disk: the base's whole tree (checkpoints, savepoints, progress, tables, landed files),
 * every file's content included, is the same before and after. Bronze has committed one batch and
 * two more files are landed: its dry run names the savepoint it would restore, the next batch's
 * file and the backlog under the limit; win5's says which state it keeps; a query that never ran is
 * a first run, as is a SQL file's ({@code sql --file --dry-run}); a changed query is refused,
 * naming why.
 */
class DryRunITCase {

    @TempDir Path dir;

    private CliOutput ok(String... args) {
        CliOutput o = CliOutput.of(args);
        assertThat(o.code()).as("%s: %s%s", List.of(args), o.out(), o.err()).isZero();
        return o;
    }

    private void land(String base, int batch) {
        ok(
                "land-events",
                "--base",
                base,
                "--batch",
                "" + batch,
                "--start",
                "" + batch * 200,
                "--n",
                "200");
    }

    @Test
    void aDryRunSaysWhatTheRunWouldDoAndWritesNothing() {
        Path basePath = dir.resolve("base");
        String base = basePath.toString();
        land(base, 0);
        ok("run", "bronze", "--base", base, "--quiet");
        ok("run", "win5", "--base", base, "--quiet");
        land(base, 1);
        land(base, 2);
        Map<String, String> before = tree(basePath);

        String bronze =
                ok("run", "bronze", "--base", base, "--max-files-per-trigger", "1", "--dry-run")
                        .out();
        assertThat(bronze)
                .contains("bronze: dry run; nothing was run or written.")
                .containsPattern("restore point: savepoint \\S+ \\(batch 0\\)")
                .contains("the checkpoint serves this query")
                .containsPattern("source 'events': next batch 1 reads file \\S*/batch_1/\\S*")
                .contains("up to what is there now: 2 batches, 2 files")
                .contains("maxFilesPerTrigger")
                .doesNotContain("refused");

        String win5 = ok("run", "win5", "--base", base, "--dry-run").out();
        assertThat(win5)
                .containsPattern("restore point: savepoint \\S+ \\(batch 0\\)")
                .contains("state in the restore point:")
                .containsPattern("kept: \\S*win5\\S*, keyed, [1-9]\\d* bytes")
                .contains("nothing new to read")
                .doesNotContain("refused");

        String dedup = ok("run", "dedup", "--base", base, "--dry-run").out();
        assertThat(dedup)
                .contains("restore point: none: a first run")
                .contains("source 'events_bronze': next batch 0 reads");

        String changed = ok("run", "win5", "--base", base, "--api", "table", "--dry-run").out();
        assertThat(changed).contains("refused: checkpoint ").contains("reset win5");

        // Another base's bronze writing this base's warehouse: its run would be refused at the
        // table, and so is its dry run, naming the table and its writer.
        land(dir.resolve("other").toString(), 0);
        String other =
                ok(
                                "run",
                                "bronze",
                                "--base",
                                dir.resolve("other").toString(),
                                "--warehouse",
                                basePath.resolve("warehouse").toString(),
                                "--dry-run")
                        .out();
        assertThat(other)
                .contains("refused: table 'events_bronze'")
                .contains("is written by")
                .contains("cannot write it");

        String sql =
                ok(
                                "sql",
                                "--file",
                                ProjectScripts.ROOT.resolve("examples/sql/win5.sql").toString(),
                                "--name",
                                "own-win5",
                                "--base",
                                base,
                                "--dry-run")
                        .out();
        assertThat(sql)
                .contains("own-win5: dry run; nothing was run or written.")
                .contains("restore point: none: a first run")
                .containsPattern("source '\\S+': next batch 0 reads");

        // --until-final T with --dry-run: whether events_5min (win5's, over ids 0..199: events up
        // to 00:33:10, final up to 00:23:10) is final up to T yet, said without reading a row.
        Path copy = dir.resolve("copy.sql");
        writeCopyOfWin5(copy);
        String waits =
                ok(
                                "sql",
                                "--file",
                                copy.toString(),
                                "--base",
                                base,
                                "--until-final",
                                "2025-03-01T02:00:00Z",
                                "--dry-run")
                        .out();
        assertThat(waits)
                .contains(
                        "refused: --until-final 2025-03-01T02:00:00Z: table events_5min is final"
                                + " only up to 2025-03-01T00:23:10.000Z (version ")
                .contains("run the query that writes events_5min once newer events have landed")
                .doesNotContain("the run would go on");
        String goesOn =
                ok(
                                "sql",
                                "--file",
                                copy.toString(),
                                "--base",
                                base,
                                "--until-final",
                                "2025-03-01T00:20:00Z",
                                "--dry-run")
                        .out();
        assertThat(goesOn)
                .contains(
                        "note: --until-final 2025-03-01T00:20:00Z: table events_5min is final up"
                                + " to 2025-03-01T00:23:10.000Z (version ")
                .contains("the run would read it")
                .contains("the run would go on")
                .doesNotContain("refused");

        assertThat(tree(basePath)).isEqualTo(before);
    }

    /** A query downstream of events_5min: a copy of its windows. */
    private static void writeCopyOfWin5(Path file) {
        try {
            Files.writeString(
                    file,
                    """
                    CREATE TEMPORARY TABLE events_5min (
                      window_start TIMESTAMP_LTZ(3), window_end TIMESTAMP_LTZ(3),
                      event_type STRING, events BIGINT, amount DOUBLE
                    ) WITH ('connector' = 'delta', 'table' = 'events_5min');
                    CREATE TEMPORARY TABLE windows_copy (
                      window_start TIMESTAMP_LTZ(3), window_end TIMESTAMP_LTZ(3),
                      event_type STRING, events BIGINT, amount DOUBLE
                    ) WITH ('connector' = 'delta', 'table' = 'windows_copy');
                    INSERT INTO windows_copy SELECT * FROM events_5min;
                    """);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every file under {@code root} with its content's hash, and every folder. */
    private static Map<String, String> tree(Path root) {
        Map<String, String> tree = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                String key = root.relativize(p).toString();
                tree.put(key, Files.isDirectory(p) ? "folder" : sha256(p));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return tree;
    }

    private static String sha256(Path file) throws IOException {
        try {
            return HexFormat.of()
                    .formatHex(
                            MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
