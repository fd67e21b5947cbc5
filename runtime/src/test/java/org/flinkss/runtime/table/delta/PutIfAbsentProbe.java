package org.flinkss.runtime.table.delta;

import io.delta.kernel.utils.CloseableIterator;
import org.apache.hadoop.conf.Configuration;

import java.nio.file.*;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Not a test: how often two writers both "create" one log entry, per engine (args: folder rounds).
 */
public final class PutIfAbsentProbe {
    public static void main(String[] args) throws Exception {
        Path root = Paths.get(args[0]);
        int rounds = Integer.parseInt(args[1]);
        for (String kind : List.of("hadoop", "flink")) {
            int doubleWins = 0;
            ExecutorService pool = Executors.newFixedThreadPool(2);
            for (int r = 0; r < rounds; r++) {
                Path dir = root.resolve(kind + "/" + r);
                Files.createDirectories(dir);
                String target = dir.toUri().toString() + "00000000000000000001.json";
                CyclicBarrier barrier = new CyclicBarrier(2);
                AtomicInteger wins = new AtomicInteger();
                List<Future<?>> fs = new ArrayList<>();
                for (int w = 0; w < 2; w++) {
                    String line = "{\"writer\":" + w + "}";
                    fs.add(
                            pool.submit(
                                    () -> {
                                        // Each writer is its own engine, as two processes would be.
                                        io.delta.kernel.defaults.engine.fileio.FileIO io =
                                                kind.equals("hadoop")
                                                        ? new io.delta.kernel.defaults.engine
                                                                .hadoopio.HadoopFileIO(
                                                                new Configuration())
                                                        : new FlinkFileIO(
                                                                s -> PutIfAbsent.localDisk(),
                                                                Map.of());
                                        barrier.await();
                                        try {
                                            io.newOutputFile(target)
                                                    .writeAtomically(one(line), false);
                                            wins.incrementAndGet();
                                        } catch (FileAlreadyExistsException e) {
                                            // lost the race, as it should
                                        }
                                        return null;
                                    }));
                }
                for (Future<?> f : fs) f.get();
                if (wins.get() > 1) doubleWins++;
            }
            pool.shutdown();
            System.out.println(
                    kind
                            + ": both writers succeeded in "
                            + doubleWins
                            + " of "
                            + rounds
                            + " races");
        }
    }

    private static CloseableIterator<String> one(String s) {
        Iterator<String> it = List.of(s).iterator();
        return new CloseableIterator<>() {
            public boolean hasNext() {
                return it.hasNext();
            }

            public String next() {
                return it.next();
            }

            public void close() {}
        };
    }
}
