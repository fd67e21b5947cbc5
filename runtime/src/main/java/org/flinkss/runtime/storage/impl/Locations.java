package org.flinkss.runtime.storage.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.fs.Path;

import java.io.File;
import java.net.URI;
import java.util.Set;

/** Which kind of storage a path is on. */
@Internal
public final class Locations {

    private static final Set<String> S3_SCHEMES = Set.of("s3", "s3a", "s3p");

    private Locations() {}

    public static boolean isObjectStore(Path path) {
        String scheme = path.toUri().getScheme();
        return scheme != null && S3_SCHEMES.contains(scheme);
    }

    public static boolean isLocal(Path path) {
        String scheme = path.toUri().getScheme();
        return scheme == null || scheme.equals("file");
    }

    /** The local file of a {@code file:} path; refuses any other, naming {@code what}. */
    public static File localFile(Path path, String what) {
        if (!isLocal(path)) {
            throw new IllegalArgumentException(
                    what + " must be on the local disk, not " + path + ": give a local path");
        }
        URI uri = path.toUri();
        return uri.getScheme() == null ? new File(uri.getPath()) : new File(uri);
    }
}
