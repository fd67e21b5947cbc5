package org.flinkss.runtime.storage.impl;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The durable writer: a file is published whole by name after its content was forced to the disk,
 * and no temporary file stays behind (issue 38, point 4).
 */
class LocalDiskDurableWriteTest {

    @TempDir Path dir;

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private String[] names() throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toArray(String[]::new);
        }
    }

    @Test
    void replaceWritesTheWholeNewContentAndLeavesNoTemporaryFile() throws Exception {
        Path file = dir.resolve("metadata.json");
        LocalDisk.replace(file, bytes("{\"v\":1}\n"));
        LocalDisk.replace(file, bytes("{\"v\":2}\n"));

        assertThat(Files.readString(file)).isEqualTo("{\"v\":2}\n");
        assertThat(names()).containsExactly("metadata.json");
    }

    @Test
    void createIfAbsentWritesOnceAndNeverOverAnExistingFile() throws Exception {
        Path file = dir.resolve("00000000000000000003.json");

        assertThat(LocalDisk.createIfAbsent(file, bytes("{\"add\":1}\n"))).isTrue();
        assertThat(LocalDisk.createIfAbsent(file, bytes("{\"add\":2}\n"))).isFalse();

        assertThat(Files.readString(file)).isEqualTo("{\"add\":1}\n");
        assertThat(names()).containsExactly("00000000000000000003.json");
    }

    @Test
    void writeNewForcesANewFileAndRefusesAnExistingOne() throws Exception {
        Path file = dir.resolve("a");
        Fsync.writeNew(file, bytes("x".repeat(100_000)));

        assertThat(Files.size(file)).isEqualTo(100_000);
        assertThatThrownBy(() -> Fsync.writeNew(file, bytes("y")))
                .isInstanceOf(FileAlreadyExistsException.class);
        Fsync.file(file);
        Fsync.folder(dir); // a folder opens and forces on a POSIX disk
        assertThat(Files.readString(file)).hasSize(100_000);
    }
}
