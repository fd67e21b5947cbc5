package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.storage.Storage;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;

/**
 * Writes a file only if it is absent, whole or not at all: the one primitive a Delta log needs from
 * its storage. Two writers racing for version N both try to create {@code _delta_log/000..N.json};
 * exactly one must succeed and the other must get {@link FileAlreadyExistsException}, which Delta
 * Kernel turns into a conflict check and a retry at N+1. A storage that cannot do this atomically
 * loses commits silently (the second writer overwrites the first's entry), so there is no fallback
 * that "mostly works".
 *
 * <p>One implementation per kind of storage: {@link #localDisk()} for {@code file:} paths, {@link
 * #objectStore()} for {@code s3:} and {@code s3a:}. An object store needs a conditional put: on S3,
 * {@code PutObject} with {@code If-None-Match: *} (answered {@code 412 Precondition Failed} when
 * the key exists); on GCS {@code ifGenerationMatch=0}; on Azure {@code If-None-Match: *}.
 */
@FunctionalInterface
public interface PutIfAbsent {

    /**
     * Creates {@code target} with {@code content}. Readers never see a part of it.
     *
     * @throws FileAlreadyExistsException if {@code target} exists (nothing is written)
     */
    void create(FileSystem fs, Path target, byte[] content) throws IOException;

    /**
     * A local (POSIX) disk: the content goes to a hidden temporary file beside the target, which is
     * then hard-linked to the target's name. {@code link(2)} fails with {@code EEXIST} atomically,
     * unlike {@code rename(2)}, which replaces an existing target; so this holds across threads and
     * processes, with no lock.
     */
    static PutIfAbsent localDisk() {
        return (fs, target, content) -> {
            if (!Storage.createIfAbsent(target, content)) {
                throw new FileAlreadyExistsException(target.toString());
            }
        };
    }

    /**
     * An S3 object store ({@code s3://}, {@code s3a://}, through flink-s3-fs-hadoop): one {@code
     * PutObject} with {@code If-None-Match: *}, which S3 answers {@code 412 Precondition Failed}
     * when the key exists; the object appears whole or not at all. See {@link
     * Storage#createIfAbsent}.
     */
    static PutIfAbsent objectStore() {
        return (fs, target, content) -> {
            if (!Storage.createIfAbsent(target, content)) {
                throw new FileAlreadyExistsException(target.toString());
            }
        };
    }

    /** The refusal for storage with no put-if-absent configured: says what is missing. */
    static PutIfAbsent unsupported(String scheme) {
        return (fs, target, content) -> {
            throw new IOException(
                    "cannot write Delta log entry "
                            + target
                            + ": no put-if-absent is configured for '"
                            + scheme
                            + ":' paths, and without one two writers can both commit the same table"
                            + " version. Give the storage one with DeltaStorage.withPutIfAbsent(\""
                            + scheme
                            + "\", ...) (on S3: PutObject with If-None-Match: *).");
        };
    }
}
