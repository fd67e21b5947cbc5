package org.flinkss.runtime.runner.impl;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.NativeLibraryLoader;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

import org.flinkss.runtime.storage.impl.NestedJarCache;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * RocksDB's library loaded from the kept copy: in a fresh JVM (this one may have loaded RocksDB
 * already), Flink's later call to RocksDB's loader extracts nothing into the folder it gives, and a
 * RocksDB opened afterwards reads back what it wrote.
 */
class RocksDbLibraryTest {

    @TempDir Path dir;

    /** Run in a child JVM: preload, then what Flink's backend does, then a RocksDB. */
    public static void main(String[] args) throws Exception {
        if (!RocksDbLibrary.preload()) {
            throw new AssertionError("not preloaded");
        }
        Path flinksFolder = Paths.get(args[0]);
        // EmbeddedRocksDBStateBackend.ensureRocksDBIsLoaded: the loader, then RocksDB's own.
        NativeLibraryLoader.getInstance().loadLibrary(flinksFolder.toString());
        RocksDB.loadLibrary();
        try (var extracted = Files.list(flinksFolder)) {
            if (extracted.findAny().isPresent()) {
                throw new AssertionError("extracted again into " + flinksFolder);
            }
        }
        try (Options options = new Options().setCreateIfMissing(true);
                RocksDB db = RocksDB.open(options, args[1])) {
            db.put("k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8));
            System.out.println(
                    "read back "
                            + new String(
                                    db.get("k".getBytes(StandardCharsets.UTF_8)),
                                    StandardCharsets.UTF_8));
        }
    }

    @Test
    void flinksLoadAfterThePreloadExtractsNothingAndRocksDbWorks() throws Exception {
        Path flinksFolder = Files.createDirectories(dir.resolve("rocksdb-lib"));
        Path out = dir.resolve("out.txt");
        Process child =
                new ProcessBuilder(
                                List.of(
                                        Paths.get(System.getProperty("java.home"), "bin", "java")
                                                .toString(),
                                        "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"),
                                        "-cp",
                                        System.getProperty("java.class.path"),
                                        RocksDbLibraryTest.class.getName(),
                                        flinksFolder.toString(),
                                        dir.resolve("db").toString()))
                        .redirectErrorStream(true)
                        .redirectOutput(out.toFile())
                        .start();
        assertThat(child.waitFor(2, TimeUnit.MINUTES)).isTrue();

        String output = Files.readString(out);
        assertThat(child.exitValue()).as(output).isZero();
        assertThat(output).contains("read back v");
        assertThat(flinksFolder.toFile().list()).isEmpty();
        assertThat(NestedJarCache.inTemporaryFolder().folder().toFile().list())
                .as("the kept copy")
                .anyMatch(name -> name.startsWith("rocksdbjni-"));
    }
}
