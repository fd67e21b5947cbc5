package org.flinkss.runtime.storage.impl;

import org.apache.flink.annotation.Internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

/**
 * Forces what was written on a local disk to the disk itself, so that a crash of the machine (not
 * only of the process) cannot leave a file that was published empty or torn: the page cache holds a
 * written file for up to half a minute, and a rename or link can reach the disk before the data it
 * names (ext4's {@code data=ordered} protects only some renames, XFS none). The protocol is the one
 * databases use: write a temporary file, {@code fsync} it, publish it by name ({@code rename(2)} or
 * {@code link(2)}), {@code fsync} the folder that holds the name.
 *
 * <p>An object store needs none of this: a {@code PUT} is durable once answered, and whole.
 */
@Internal
public final class Fsync {

    private static final boolean FOLDERS_SYNCABLE =
            !System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");

    private Fsync() {}

    /** Creates the new file {@code file} (it must not exist) with {@code content}, on the disk. */
    public static void writeNew(Path file, byte[] content) throws IOException {
        try (FileChannel channel =
                FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ByteBuffer buffer = ByteBuffer.wrap(content);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            channel.force(true);
        }
    }

    /** Forces the content of the existing file {@code file} to the disk. */
    public static void file(Path file) throws IOException {
        // fsync(2) flushes the file whatever the descriptor was opened for.
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    /**
     * Forces the names in {@code folder} (a file just created, renamed or linked there) to the
     * disk. Windows cannot open a folder as a file; its NTFS journals renames itself.
     */
    public static void folder(Path folder) throws IOException {
        if (FOLDERS_SYNCABLE) {
            try (FileChannel channel = FileChannel.open(folder, StandardOpenOption.READ)) {
                channel.force(true);
            }
        }
    }
}
