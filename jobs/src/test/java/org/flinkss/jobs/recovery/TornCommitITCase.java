package org.flinkss.jobs.recovery;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.jobs.CliOutput;
import org.flinkss.jobs.queries.WindowITCase;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 38, point 4: a newest bronze commit that a crash left torn (zero bytes, or cut in its last
 * line) is absent, never a new batch. {@code table count} counts the table without it; the next
 * {@code run bronze} commits that batch again as the same version; {@code win5} and {@code dedup},
 * which had read the version before it was torn, read nothing twice. Every table, the {@code _late}
 * ones and the quarantine included, ends as an uninterrupted run's. Before the fix a zero-length
 * commit made {@code table count} drop its rows and the next run commit the batch as a new version,
 * which win5 and dedup then read again.
 */
class TornCommitITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path dir;

    private static CliOutput ok(Path base, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--base", base.toString()));
        if (args[0].equals("run")) {
            all.addAll(List.of("--parallelism", "2", "--quiet"));
        }
        CliOutput o = CliOutput.of(all.toArray(String[]::new));
        assertThat(o.code()).as("%s: %s%s", all, o.out(), o.err()).isZero();
        return o;
    }

    private static void land(Path base, int fromFile, int toFile) {
        for (int file = fromFile; file <= toFile; file++) {
            EventFiles.writeBatch(
                    Storage.location(base.resolve("events").toFile()),
                    file,
                    EventGenerator.events((file - 1) * 500L, 500));
        }
    }

    private static void runAll(Path base) {
        ok(base, "run", "bronze");
        ok(base, "run", "win5");
        ok(base, "run", "dedup");
    }

    /**
     * Step 1-3 of both scenarios: three files, every query; four more and the late event of topic
     * 11.11, every query. Then {@code tear} (if any) damages bronze's newest commit, and the
     * queries run again.
     */
    private Map<String, List<List<Object>>> scenario(Path base, Consumer<Path> tear)
            throws Exception {
        land(base, 1, 3);
        runAll(base);
        land(base, 4, 7);
        EventFiles.writeBatch(
                Storage.location(base.resolve("events").toFile()), 8, List.of(WindowITCase.LATE));
        runAll(base);
        Path log = base.resolve("warehouse/events_bronze/_delta_log");
        if (tear != null) {
            Path newest = newestCommit(log);
            long before = count(base);
            tear.accept(newest);
            // The torn version is absent: the table is the version before, no error.
            assertThat(count(base)).isLessThan(before);
            long versions = commits(log);
            runAll(base);
            assertThat(commits(log))
                    .as("the batch rewritten as the same version")
                    .isEqualTo(versions);
            assertThat(count(base)).isEqualTo(before);
        } else {
            runAll(base); // nothing new: changes nothing
        }
        return SameTables.of(Storage.location(base.resolve("warehouse").toFile()));
    }

    private static long count(Path base) {
        String out = ok(base, "table", "count", "events_bronze").out().trim();
        return Long.parseLong(out.replaceAll("(?s).*?(\\d+)\\s*$", "$1"));
    }

    private static Path newestCommit(Path log) throws Exception {
        try (Stream<Path> s = Files.list(log)) {
            return s.filter(p -> p.getFileName().toString().matches("\\d{20}\\.json"))
                    .max(Path::compareTo)
                    .orElseThrow();
        }
    }

    private static long commits(Path log) throws Exception {
        try (Stream<Path> s = Files.list(log)) {
            return s.filter(p -> p.getFileName().toString().matches("\\d{20}\\.json")).count();
        }
    }

    private static void truncate(Path file, long length) {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(length);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void aTornNewestBronzeCommitIsRewrittenAsTheSameVersionAndEveryTableEndsExact()
            throws Exception {
        // Step 1: the expectation, an uninterrupted history.
        Map<String, List<List<Object>>> expected = scenario(dir.resolve("reference"), null);
        assertThat(expected.get("events_bronze")).hasSize(3501);
        assertThat(expected.get("events_5min_late")).isNotEmpty();

        // Step 2: the newest commit cut to zero bytes (a crash before its content reached the
        // disk), then every query again.
        Map<String, List<List<Object>>> zeroLength =
                scenario(dir.resolve("zero"), newest -> truncate(newest, 0));
        assertThat(SameTables.counts(zeroLength)).isEqualTo(SameTables.counts(expected));
        assertThat(zeroLength).isEqualTo(expected);

        // Step 3: the newest commit cut in its last line (half written).
        Map<String, List<List<Object>>> halfWritten =
                scenario(
                        dir.resolve("half"),
                        newest -> {
                            try {
                                truncate(newest, Files.size(newest) / 2);
                            } catch (java.io.IOException e) {
                                throw new java.io.UncheckedIOException(e);
                            }
                        });
        assertThat(SameTables.counts(halfWritten)).isEqualTo(SameTables.counts(expected));
        assertThat(halfWritten).isEqualTo(expected);
        assertThat(new Warehouse(Storage.location(dir.resolve("half/warehouse").toFile())).tables())
                .contains("events_bronze", "events_5min", "events_dedup");
    }
}
