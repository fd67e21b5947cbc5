package org.flinkss.runtime.storage.impl;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The copies of nested jars kept between runs: made once per content, reused, never read from a
 * folder that is not this user's alone.
 */
class NestedJarCacheTest {

    @TempDir Path dir;

    private URL nested(String outerName, String content) throws IOException {
        Path outer = dir.resolve(outerName);
        try (JarOutputStream jar = new JarOutputStream(Files.newOutputStream(outer))) {
            jar.putNextEntry(new JarEntry("inner.jar"));
            jar.write(content.getBytes(StandardCharsets.UTF_8));
            jar.closeEntry();
        }
        return new URL("jar:" + outer.toUri() + "!/inner.jar");
    }

    @Test
    void aNestedJarIsCopiedOnceAndReusedWhileItsContentIsTheSame() throws Exception {
        NestedJarCache cache = new NestedJarCache(dir.resolve("cache"));

        Path first = cache.copyOf(nested("a.jar", "version one"), "inner");
        assertThat(first).hasContent("version one");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(first.getParent())))
                .isEqualTo("rwx------");
        Files.setLastModifiedTime(first, FileTime.fromMillis(0));

        Path again = cache.copyOf(nested("b.jar", "version one"), "inner");
        assertThat(again).isEqualTo(first);
        assertThat(Files.getLastModifiedTime(again).toMillis()).as("not written again").isZero();

        Path other = cache.copyOf(nested("c.jar", "version two"), "inner");
        assertThat(other).isNotEqualTo(first).hasContent("version two");
        try (var files = Files.list(dir.resolve("cache"))) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .as("no partial copies left")
                    .allMatch(name -> name.startsWith("inner-") && name.endsWith(".jar"))
                    .hasSize(2);
        }
    }

    @Test
    void aCopyCutShortIsMadeAgain() throws Exception {
        NestedJarCache cache = new NestedJarCache(dir.resolve("cache"));
        Path copy = cache.copyOf(nested("a.jar", "the whole jar"), "inner");
        try (OutputStream out = Files.newOutputStream(copy)) {
            out.write("the".getBytes(StandardCharsets.UTF_8));
        }

        assertThat(cache.copyOf(nested("a.jar", "the whole jar"), "inner"))
                .isEqualTo(copy)
                .hasContent("the whole jar");
    }

    @Test
    void aFolderOthersMayWriteToIsRefused() throws Exception {
        Path shared = Files.createDirectories(dir.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));

        assertThatThrownBy(() -> new NestedJarCache(shared).copyOf(nested("a.jar", "x"), "inner"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(shared.toString())
                .hasMessageContaining("rwxrwxrwx")
                .hasMessageContaining("not this user's (uid ");
        try (var files = Files.list(shared)) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void aFolderAnotherUserOwnsIsRefused() throws Exception {
        Path theirs = Files.createDirectories(dir.resolve("theirs"));
        Files.setPosixFilePermissions(theirs, PosixFilePermissions.fromString("rwx------"));
        try {
            // Only root may give a folder away: elsewhere there is no other user's folder to make.
            Files.setAttribute(theirs, "unix:uid", 65534);
        } catch (IOException e) {
            org.junit.jupiter.api.Assumptions.abort("cannot chown as this user: " + e);
        }

        assertThatThrownBy(() -> new NestedJarCache(theirs).copyOf(nested("a.jar", "x"), "inner"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("is owned by uid 65534");
    }
}
