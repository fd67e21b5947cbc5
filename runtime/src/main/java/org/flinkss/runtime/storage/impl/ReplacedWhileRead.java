package org.flinkss.runtime.storage.impl;

import org.apache.flink.annotation.Internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * Reads a small file whole, and again when an object store replaced it while it was read. A file
 * that the project replaces on S3 (the progress log, a pointer) is one PUT, so a reader sees the
 * old object or the new one, never a part; but S3A checks that every request of one read sees the
 * same version, and fails the read ({@code RemoteFileChangedException}: "Change reported by S3
 * during open") when a PUT lands between them. Reading again from the start gives the new object
 * whole. Any other failure is thrown at once.
 */
@Internal
public final class ReplacedWhileRead {

    /** Reads in all: the first, and one for each of two replacements met in a row. */
    static final int ATTEMPTS = 3;

    /** Opens the file for one read, from its start. */
    @FunctionalInterface
    public interface Opener {
        InputStream open() throws IOException;
    }

    private ReplacedWhileRead() {}

    /** The bytes of the file {@code opener} opens, read again if it was replaced meanwhile. */
    public static byte[] readWhole(Opener opener) throws IOException {
        for (int attempt = 1; ; attempt++) {
            try (InputStream in = opener.open()) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                in.transferTo(out);
                return out.toByteArray();
            } catch (IOException e) {
                if (attempt >= ATTEMPTS || !isReplacement(e)) {
                    throw e;
                }
            }
        }
    }

    /**
     * Whether {@code error} or a cause is S3A's report of an object replaced during a read, told by
     * its class's simple name: the class is the S3 plugin's, shaded, and not on this class path.
     */
    static boolean isReplacement(Throwable error) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = error; t != null && seen.add(t); t = t.getCause()) {
            if (t.getClass().getSimpleName().equals("RemoteFileChangedException")) {
                return true;
            }
        }
        return false;
    }
}
