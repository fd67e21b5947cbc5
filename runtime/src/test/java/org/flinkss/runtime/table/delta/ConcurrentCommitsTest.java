package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.flinkss.runtime.table.delta.TestRows.EVENTS;
import static org.flinkss.runtime.table.delta.TestRows.events;

/** Writers racing for one table version: one wins, no commit is lost, no batch is written twice. */
class ConcurrentCommitsTest {

    @TempDir java.nio.file.Path dir;

    private static <T> List<T> race(List<Callable<T>> writers) throws Exception {
        CyclicBarrier start = new CyclicBarrier(writers.size());
        ExecutorService pool = Executors.newFixedThreadPool(writers.size());
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (Callable<T> w : writers) {
                futures.add(
                        pool.submit(
                                () -> {
                                    start.await();
                                    return w.call();
                                }));
            }
            List<T> results = new ArrayList<>();
            for (Future<T> f : futures) {
                results.add(f.get());
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void ofManyWritersCreatingOneLogEntryExactlyOneSucceedsAndItsContentIsWhole() throws Exception {
        PutIfAbsent local = PutIfAbsent.localDisk();
        FileSystem fs = FileSystem.getLocalFileSystem();
        for (int round = 0; round < 50; round++) {
            Path target = new Path(dir.resolve(round + ".json").toUri());
            AtomicInteger wins = new AtomicInteger();
            List<Callable<String>> writers = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                String content = ("writer " + w + "\n").repeat(1000);
                writers.add(
                        () -> {
                            try {
                                local.create(fs, target, content.getBytes(StandardCharsets.UTF_8));
                                wins.incrementAndGet();
                                return content;
                            } catch (FileAlreadyExistsException e) {
                                return null;
                            }
                        });
            }
            List<String> results = race(writers);

            assertThat(wins.get()).as("round " + round).isEqualTo(1);
            String winner = results.stream().filter(r -> r != null).findFirst().orElseThrow();
            assertThat(Files.readString(dir.resolve(round + ".json"))).isEqualTo(winner);
        }
        try (Stream<java.nio.file.Path> files = Files.list(dir)) {
            assertThat(files.filter(f -> f.getFileName().toString().endsWith(".tmp"))).isEmpty();
        }
    }

    @Test
    void twoQueriesAppendingAtOnceBothCommitAtSuccessiveVersions() throws Exception {
        DeltaTable setup = DeltaTable.forPath(dir.resolve("t").toString());
        setup.create(EVENTS, Map.of());
        int rounds = 30;
        List<Callable<List<CommitResult>>> writers = new ArrayList<>();
        for (String query : List.of("query-a", "query-b")) {
            DeltaTable table =
                    DeltaTable.forPath(dir.resolve("t").toString()); // as another process would
            List<DataFile> files = new ArrayList<>();
            for (int b = 0; b < rounds; b++) {
                long first = query.equals("query-a") ? b * 10L : 1000 + b * 10L;
                files.add(DataFiles.write(new Path(table.path()), EVENTS, events(first, 10)));
            }
            writers.add(
                    () -> {
                        // Back to back, so that the two writers meet at nearly every version.
                        List<CommitResult> results = new ArrayList<>();
                        for (int b = 0; b < rounds; b++) {
                            results.add(table.append(query, b, List.of(files.get(b))));
                        }
                        return results;
                    });
        }
        List<List<CommitResult>> results = race(writers);

        Set<Long> versions = new HashSet<>();
        results.forEach(
                rs ->
                        rs.forEach(
                                r -> {
                                    assertThat(r.committed()).isTrue();
                                    versions.add(r.version());
                                }));
        assertThat(versions).hasSize(2 * rounds); // no two commits share a version
        assertThat(setup.version()).isEqualTo(2 * rounds);
        assertThat(setup.snapshot().count()).isEqualTo(2L * rounds * 10);
        assertThat(TestRows.readWithKernel(setup.path())).hasSize(2 * rounds * 10);
        assertThat(setup.committedBatch("query-a")).hasValue(rounds - 1);
        assertThat(setup.committedBatch("query-b")).hasValue(rounds - 1);
    }

    @Test
    void twoRunsCommittingTheSameBatchWriteItOnce() throws Exception {
        DeltaTable setup = DeltaTable.forPath(dir.resolve("t").toString());
        setup.create(EVENTS, Map.of());
        for (int b = 0; b < 10; b++) {
            long batch = b;
            List<Callable<CommitResult>> runs = new ArrayList<>();
            for (int run = 0; run < 2; run++) {
                runs.add(
                        () -> {
                            DeltaTable table = DeltaTable.forPath(dir.resolve("t").toString());
                            return table.append(
                                    "query",
                                    batch,
                                    List.of(
                                            DataFiles.write(
                                                    new Path(table.path()),
                                                    EVENTS,
                                                    events(batch * 10, 10))));
                        });
            }
            List<CommitResult> results = race(runs);

            assertThat(results).filteredOn(CommitResult::committed).as("batch " + b).hasSize(1);
            assertThat(results)
                    .filteredOn(r -> !r.committed())
                    .singleElement()
                    .satisfies(r -> assertThat(r.committedBatch()).isEqualTo(batch));
        }
        assertThat(setup.snapshot().count()).isEqualTo(100);
        assertThat(setup.version()).isEqualTo(10);
    }

    @Test
    void twoOverwritesAtOnceLeaveOneWholeResultNotBoth() throws Exception {
        DeltaTable setup = DeltaTable.forPath(dir.resolve("t").toString());
        setup.create(EVENTS, Map.of());
        setup.overwrite(
                "seed", 0, List.of(DataFiles.write(new Path(setup.path()), EVENTS, events(0, 5))));
        List<Callable<CommitResult>> writers = new ArrayList<>();
        for (String query : List.of("query-a", "query-b")) {
            writers.add(
                    () -> {
                        DeltaTable table = DeltaTable.forPath(dir.resolve("t").toString());
                        long first = query.equals("query-a") ? 100 : 200;
                        return table.overwrite(
                                query,
                                0,
                                List.of(
                                        DataFiles.write(
                                                new Path(table.path()), EVENTS, events(first, 7))));
                    });
        }
        List<CommitResult> results = race(writers);

        assertThat(results).allMatch(CommitResult::committed);
        // The later commit removed the earlier one's file too: 7 rows, all from one writer.
        assertThat(setup.snapshot().files()).hasSize(1);
        assertThat(setup.snapshot().count()).isEqualTo(7);
        assertThat(TestRows.readWithKernel(setup.path())).hasSize(7);
    }
}
