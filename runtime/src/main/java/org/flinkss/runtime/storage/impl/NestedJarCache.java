package org.flinkss.runtime.storage.impl;

import org.apache.flink.annotation.Internal;

import com.sun.security.auth.module.UnixSystem;

import java.io.IOException;
import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLConnection;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.jar.JarEntry;

/**
 * A folder of this user's own that keeps copies of files nested in the runnable jar (Flink's RPC
 * system and the S3 file system plugin, jars; RocksDB's native library), so that each run does not
 * extract them again. A copy is named by the nested entry's CRC and size, written under a temporary
 * name and renamed into place, so that runs at once never see half a copy; a folder that another
 * user owns or may write to is refused (what it holds is loaded as code). Copies of earlier
 * versions stay until the temporary folder is cleaned.
 */
@Internal
public final class NestedJarCache {

    private static final Set<PosixFilePermission> OWNER_ONLY =
            PosixFilePermissions.fromString("rwx------");

    private final Path folder;

    public NestedJarCache(Path folder) {
        this.folder = folder;
    }

    public Path folder() {
        return folder;
    }

    /** {@code <java.io.tmpdir>/flinkss-<user>-jars}. */
    public static NestedJarCache inTemporaryFolder() {
        return new NestedJarCache(
                Path.of(System.getProperty("java.io.tmpdir"))
                        .resolve("flinkss-" + System.getProperty("user.name") + "-jars"));
    }

    /**
     * The local copy of the file at {@code nested} (a {@code jar:} URL into another jar), made if
     * missing: {@code <name>-<crc>-<size><the nested file's extension>}.
     *
     * @throws IOException when the folder is not this user's alone, or the copy cannot be made
     */
    public Path copyOf(URL nested, String name) throws IOException {
        URLConnection connection = nested.openConnection();
        if (!(connection instanceof JarURLConnection jar)) {
            throw new IOException(nested + " is not inside a jar");
        }
        JarEntry entry = jar.getJarEntry();
        if (entry.getSize() < 0 || entry.getCrc() < 0) {
            throw new IOException(nested + " has no size or CRC in its jar");
        }
        Path copy =
                privateFolder()
                        .resolve(
                                String.format(
                                        "%s-%08x-%d%s",
                                        name,
                                        entry.getCrc(),
                                        entry.getSize(),
                                        extension(entry.getName())));
        if (Files.isRegularFile(copy) && Files.size(copy) == entry.getSize()) {
            return copy;
        }
        Path partial = Files.createTempFile(folder, name, ".partial");
        try {
            try (InputStream in = jar.getInputStream()) {
                Files.copy(in, partial, StandardCopyOption.REPLACE_EXISTING);
            }
            Files.move(
                    partial,
                    copy,
                    StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(partial);
        }
        return copy;
    }

    /** The nested entry's extension ({@code .jar}, {@code .so}), kept by its copy. */
    private static String extension(String entry) {
        int dot = entry.lastIndexOf('.');
        return dot > entry.lastIndexOf('/') ? entry.substring(dot) : "";
    }

    private Path privateFolder() throws IOException {
        if (!Files.isDirectory(folder)) {
            try {
                Files.createDirectories(folder, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            } catch (UnsupportedOperationException e) {
                throw new IOException("no POSIX permissions for " + folder, e);
            }
        }
        if (!Files.getFileStore(folder).supportsFileAttributeView("unix")) {
            throw new IOException("no owner's uid for " + folder);
        }
        // The numeric owner, not a name: in a container running under an arbitrary uid the user
        // has no name (user.name is "?").
        Object owner = Files.getAttribute(folder, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        Set<PosixFilePermission> permissions =
                Files.getPosixFilePermissions(folder, LinkOption.NOFOLLOW_LINKS);
        long me = new UnixSystem().getUid();
        if (!(owner instanceof Integer uid && uid == me)
                || Files.isSymbolicLink(folder)
                || !OWNER_ONLY.containsAll(permissions)) {
            throw new IOException(
                    folder
                            + " is owned by uid "
                            + owner
                            + " with permissions "
                            + PosixFilePermissions.toString(permissions)
                            + ": not this user's (uid "
                            + me
                            + ") alone");
        }
        return folder;
    }
}
