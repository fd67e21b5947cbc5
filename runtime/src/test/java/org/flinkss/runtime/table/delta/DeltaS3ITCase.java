package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.testing.S3TestServer;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Delta table on S3 (S3Proxy through {@code scripts/s3}): its log entries are written with a
 * conditional put ({@code If-None-Match: *}), so two writers racing for one version never both win:
 * the loser sees the entry exists, and Delta Kernel retries it at the next version. The writers'
 * conditional puts are counted ({@link CountingPut}), so the test cannot pass without a race.
 */
@Tag("ports")
class DeltaS3ITCase {

    private static final RowType ROWS =
            RowType.of(
                    new LogicalType[] {new BigIntType(), VarCharType.STRING_TYPE},
                    new String[] {"id", "writer"});

    @RegisterExtension
    static final S3TestServer.PerClass S3 = new S3TestServer.PerClass("delta-s3-it");

    @Test
    void twoWritersRacingForEachVersionBothCommitAtSuccessiveVersionsAndNothingIsLost()
            throws Exception {
        // Step 1: an empty table on S3 (version 0).
        String path = new Path(S3.server().freshPrefix("delta"), "t").toString();
        DeltaTable setup = DeltaTable.forPath(path);
        setup.create(ROWS, Map.of());
        int rounds = 10;

        // Step 2: two writers (two DeltaTable objects, as two processes would have) with their
        // data files ready, then committing back to back so they meet at nearly every version.
        // Their log entries go through S3's conditional put, counted.
        CountingPut put = new CountingPut();
        DeltaStorage storage =
                DeltaStorage.flink().withPutIfAbsent("s3", put).withPutIfAbsent("s3a", put);
        List<Callable<List<CommitResult>>> writers = new ArrayList<>();
        for (String query : List.of("query-a", "query-b")) {
            DeltaTable table = DeltaTable.forPath(path, storage);
            List<DataFile> files = new ArrayList<>();
            for (int b = 0; b < rounds; b++) {
                files.add(DataFiles.write(new Path(table.path()), ROWS, rows(query, b)));
            }
            writers.add(
                    () -> {
                        List<CommitResult> results = new ArrayList<>();
                        for (int b = 0; b < rounds; b++) {
                            results.add(table.append(query, b, List.of(files.get(b))));
                        }
                        return results;
                    });
        }
        List<List<CommitResult>> results = race(writers);

        // Step 3: every commit at its own version, 1..2*rounds, and every row there once.
        Set<Long> versions = new HashSet<>();
        for (List<CommitResult> rs : results) {
            for (CommitResult r : rs) {
                assertThat(r.committed()).isTrue();
                versions.add(r.version());
            }
        }
        assertThat(versions).hasSize(2 * rounds);
        assertThat(setup.version()).isEqualTo(2 * rounds);
        assertThat(setup.snapshot().count()).isEqualTo(2L * rounds * 3);
        assertThat(setup.committedBatch("query-a")).hasValue(rounds - 1);
        assertThat(setup.committedBatch("query-b")).hasValue(rounds - 1);
        long entries =
                Storage.list(new Path(path, "_delta_log")).stream()
                        .filter(s -> s.getPath().getName().endsWith(".json"))
                        .count();
        assertThat(entries).as("log entries on S3").isEqualTo(2L * rounds + 1);

        // Step 4: the race happened: some commits found their version taken (S3 answered 412)
        // and were written again at a later one; each commit's entry was written once.
        assertThat(put.lost.get())
                .as("log entries refused because the other writer had written that version")
                .isPositive();
        assertThat(put.written.get()).as("log entries written").isEqualTo(2 * rounds);
    }

    /** S3's conditional put for log entries, counting what it wrote and what it was refused. */
    private static final class CountingPut implements PutIfAbsent {
        final AtomicInteger written = new AtomicInteger();
        final AtomicInteger lost = new AtomicInteger();
        private final PutIfAbsent s3 = PutIfAbsent.objectStore();

        @Override
        public void create(FileSystem fs, Path target, byte[] content) throws IOException {
            boolean commit = target.getName().matches("\\d{20}\\.json");
            try {
                s3.create(fs, target, content);
            } catch (FileAlreadyExistsException e) {
                if (commit) {
                    lost.incrementAndGet();
                }
                throw e;
            }
            if (commit) {
                written.incrementAndGet();
            }
        }
    }

    private static List<RowData> rows(String writer, int batch) {
        List<RowData> rows = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            rows.add(GenericRowData.of((long) batch * 10 + i, StringData.fromString(writer)));
        }
        return rows;
    }

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
            List<T> out = new ArrayList<>();
            for (Future<T> f : futures) {
                out.add(f.get());
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }
}
