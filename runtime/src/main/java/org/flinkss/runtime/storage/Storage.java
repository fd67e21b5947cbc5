package org.flinkss.runtime.storage;

import org.apache.flink.configuration.ConfigConstants;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.storage.impl.ConditionalPut;
import org.flinkss.runtime.storage.impl.FileEntry;
import org.flinkss.runtime.storage.impl.Fsync;
import org.flinkss.runtime.storage.impl.ListFrom;
import org.flinkss.runtime.storage.impl.LocalDisk;
import org.flinkss.runtime.storage.impl.Locations;
import org.flinkss.runtime.storage.impl.PluginContextStream;
import org.flinkss.runtime.storage.impl.ReplacedWhileRead;
import org.flinkss.runtime.storage.impl.S3Failures;
import org.flinkss.runtime.storage.impl.S3Listing;
import org.flinkss.runtime.storage.impl.S3Plugin;

import javax.annotation.Nullable;

import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The project's small files (checkpoint metadata, offsets, progress, pointers, leases) on any
 * storage Flink's {@link FileSystem} serves: a local disk ({@code file:} and plain paths) or an
 * object store ({@code s3://bucket/key}, through Flink's {@code flink-s3-fs-hadoop}).
 *
 * <p>What each operation guarantees, on both kinds of storage:
 *
 * <ul>
 *   <li>{@link #replace}: readers see the old content or the new, never a part. Local disk: a
 *       temporary file beside the target, then an atomic rename. S3: one {@code PutObject}, which
 *       S3 makes visible whole.
 *   <li>{@link #createIfAbsent}: of two writers racing for one name, exactly one wins, across
 *       threads, processes and machines. Local disk: {@code link(2)} of a temporary file, which
 *       fails atomically when the name exists. S3: {@code PutObject} with {@code If-None-Match: *}
 *       ({@code 412 Precondition Failed} when the key exists), which S3A 3.3.4 (inside
 *       flink-s3-fs-hadoop 2.2.0) has no API for, so the S3A file system's own AWS client sends it:
 *       same endpoint, credentials and retries as every other request.
 *   <li>{@link #list}: the direct children of a folder (an S3 prefix followed by {@code /}); {@link
 *       #listFrom}: its files from a name on, in order.
 * </ul>
 *
 * <p>Object stores have no folders: creating one is a no-op there, and a folder exists once an
 * object is under it.
 */
public final class Storage {

    private static final String SDK_NOTICE = "aws.java.v1.disableDeprecationAnnouncement";

    /**
     * The S3 plugin's AWS SDK v1 warns through {@code java.util.logging}, on stderr, at its first
     * upload of every process that it has no {@code mime.types} file; the content types it would
     * read there mean nothing for a table's files. Held here: {@code java.util.logging} keeps its
     * loggers (and so their levels) only while someone refers to them.
     */
    private static final Logger SDK_MIME_TYPES =
            Logger.getLogger("com.amazonaws.services.s3.internal.Mimetypes");

    private static volatile boolean initialized;

    private Storage() {}

    /**
     * {@link #initialize(Configuration)} with {@code conf}, unless this process initialized the
     * file systems already (a command run inside a test, or a second command in one process): the
     * first configuration stays.
     */
    public static synchronized void initializeOnce(Supplier<Configuration> conf) {
        if (!initialized) {
            initialize(conf.get());
        }
    }

    /**
     * {@link #initializeOnce(Supplier)}, naming the file the configuration comes from: failures to
     * reach S3 ({@link #explainFailure}) tell the user which file to check.
     */
    public static synchronized void initializeOnce(Supplier<Configuration> conf, String source) {
        if (!initialized) {
            initialize(conf.get(), System.getenv(), source);
        }
    }

    /**
     * Makes Flink's file systems ready for this process: the {@code s3.*} keys of {@code conf}
     * (endpoint, path-style access, credentials) reach the S3 file system, with {@code
     * AWS_ACCESS_KEY_ID} and {@code AWS_SECRET_ACCESS_KEY} of the environment overriding the keys
     * when both are set. The S3 file system is loaded as a Flink plugin (its own class loader, so
     * its Hadoop and AWS classes never meet the job's): from Flink's plugins folder when there is
     * one with it, else from the copy the jobs jar carries. Credentials are never logged.
     */
    public static void initialize(Configuration conf) {
        initialize(conf, System.getenv());
    }

    /**
     * Records that Flink initialized this process's file systems itself (the {@code flink run}
     * client, from the cluster's configuration and plugins): {@link #initializeOnce} keeps them.
     */
    public static synchronized void initializedByFlink() {
        initialized = true;
        String dir = System.getenv(ConfigConstants.ENV_FLINK_CONF_DIR);
        if (dir != null) {
            try {
                S3Failures.settingsFrom(
                        GlobalConfiguration.loadConfiguration(dir),
                        new File(dir, GlobalConfiguration.FLINK_CONF_FILENAME)
                                + " (the Flink client's $FLINK_CONF_DIR; scripts/cluster writes it"
                                + " from flink-conf/config.yaml)");
            } catch (RuntimeException e) {
                // Only the wording of a failure to reach S3 depends on it.
            }
        }
    }

    /**
     * One line for a failure to reach an object store that comes from the setup (the endpoint does
     * not answer, the bucket does not exist, the credentials are refused): the endpoint, the bucket
     * and path, and the configuration keys to check. Empty for any other failure.
     *
     * @param location what was being read or written, when known
     */
    public static Optional<String> explainFailure(@Nullable Path location, Throwable error) {
        return S3Failures.explain(location, error);
    }

    static void initialize(Configuration conf, Map<String, String> env) {
        initialize(conf, env, null);
    }

    private static void initialize(
            Configuration conf, Map<String, String> env, @Nullable String source) {
        Configuration effective = new Configuration(conf);
        String key = env.get("AWS_ACCESS_KEY_ID");
        String secret = env.get("AWS_SECRET_ACCESS_KEY");
        if (key != null && !key.isBlank() && secret != null && !secret.isBlank()) {
            effective.setString("s3.access-key", key);
            effective.setString("s3.secret-key", secret);
        }
        // The S3 plugin's AWS SDK v1 prints a deprecation notice with a stack trace on stderr,
        // which says nothing a user of this project can act on.
        if (System.getProperty(SDK_NOTICE) == null) {
            System.setProperty(SDK_NOTICE, "true");
        }
        SDK_MIME_TYPES.setLevel(Level.SEVERE);
        FileSystem.initialize(effective, S3Plugin.pluginManager(effective));
        S3Failures.settingsFrom(effective, source);
        initialized = true;
    }

    /**
     * The location a user gave: a URI with a scheme ({@code s3://bucket/prefix}, {@code
     * file:///tmp/x}) as it is, a plain path made absolute on the local disk, as today.
     */
    public static Path location(String given) {
        if (given.isBlank()) {
            throw new IllegalArgumentException("an empty location: give a folder or s3://bucket/x");
        }
        URI uri = schemeOf(given) == null ? null : URI.create(given);
        if (uri == null || uri.getScheme().length() == 1) {
            // No scheme, or a Windows drive letter: a local path.
            return new Path(new File(given).getAbsoluteFile().toURI().normalize());
        }
        return new Path(uri.normalize());
    }

    /** A local file or folder as a location: {@code file:/...}, absolute and normalized. */
    public static Path location(File local) {
        return new Path(local.toPath().toAbsolutePath().normalize().toUri());
    }

    /**
     * How messages name a location: a local one as its file ({@code /data/_cp/bronze}), any other
     * as its URI ({@code s3://bucket/prefix}), as the user gave them.
     */
    public static String shown(Path location) {
        return isLocal(location)
                ? localFile(location, "a location").toString()
                : location.toString();
    }

    /** Whether {@code path} is on an S3 object store (rather than a local or shared disk). */
    public static boolean isObjectStore(Path path) {
        return Locations.isObjectStore(path);
    }

    /** Whether {@code path} is on the local disk. */
    public static boolean isLocal(Path path) {
        return Locations.isLocal(path);
    }

    /**
     * The local file of a {@code file:} path, for what only a local file can do (an OS file lock, a
     * SQLite database, an atomic rename); refuses any other, naming {@code what}.
     */
    public static File localFile(Path path, String what) {
        return Locations.localFile(path, what);
    }

    public static boolean exists(Path path) throws IOException {
        return path.getFileSystem().exists(path);
    }

    /** The whole content of a file. */
    public static byte[] readBytes(Path path) throws IOException {
        // An object replaced while it is read is read again: ReplacedWhileRead.
        return ReplacedWhileRead.readWhole(() -> path.getFileSystem().open(path));
    }

    public static String readText(Path path) throws IOException {
        return new String(readBytes(path), StandardCharsets.UTF_8);
    }

    /** Creates or replaces {@code path} with {@code content}; readers never see a part of it. */
    public static void replace(Path path, byte[] content) throws IOException {
        if (isLocal(path)) {
            LocalDisk.replace(localFile(path, "a file").toPath(), content);
            return;
        }
        // An object store: the object appears with one PUT when the stream closes, whole.
        try (OutputStream out = create(path, FileSystem.WriteMode.OVERWRITE)) {
            out.write(content);
        }
    }

    /**
     * Forces a file just written and closed (a data file a commit is about to name) to the disk,
     * with the folder that holds its name, so that a crash of the machine cannot leave a commit
     * naming a file that is empty or torn. On an object store a closed stream's PUT is durable
     * already: nothing to do.
     */
    public static void sync(Path file) throws IOException {
        if (isLocal(file)) {
            java.nio.file.Path local = localFile(file, "a file").toPath();
            Fsync.file(local);
            Fsync.folder(local.getParent());
        }
    }

    /**
     * A new file written through Flink's file system, as {@code FileSystem.create}; on a plugin's
     * file system (S3) the stream's calls run with the plugin's context class loader ({@link
     * PluginContextStream}): every write to an object store goes through here.
     */
    public static FSDataOutputStream create(Path path, FileSystem.WriteMode mode)
            throws IOException {
        FileSystem fs = path.getFileSystem();
        return PluginContextStream.of(fs, fs.create(path, mode));
    }

    public static void replaceText(Path path, String text) throws IOException {
        replace(path, text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Creates {@code path} with {@code content} only if nothing has that name: true if this call
     * created it, false if it existed (then nothing is written). Of several writers racing for one
     * name, on one machine or several, exactly one gets true.
     *
     * @throws UnsupportedOperationException on storage with no atomic create-if-absent (HDFS and
     *     other object stores are not supported yet), naming the storage
     */
    public static boolean createIfAbsent(Path path, byte[] content) throws IOException {
        return ConditionalPut.createIfAbsent(path, content);
    }

    /**
     * The direct children of a folder, files and folders, in no particular order; none if it does
     * not exist.
     */
    public static List<FileStatus> list(Path folder) throws IOException {
        FileSystem fs = folder.getFileSystem();
        FileStatus[] children;
        try {
            children = fs.listStatus(folder);
        } catch (FileNotFoundException e) {
            return List.of();
        }
        return children == null ? List.of() : new ArrayList<>(Arrays.asList(children));
    }

    /**
     * The files of a folder whose names sort at or after {@code fromName}, in name order, as a
     * Delta log is read. On S3 one listing request starts at the name ({@code StartAfter}), so the
     * cost follows what is returned, not the folder's size; a local folder's names are all read,
     * but only the returned files' status.
     *
     * @throws java.io.FileNotFoundException when the folder does not exist (on S3: nothing under
     *     it)
     */
    public static List<ListedFile> listFrom(Path folder, String fromName) throws IOException {
        return listed(ListFrom.files(folder, fromName));
    }

    /**
     * The files below a folder at any depth (no folders), in no particular order; none if it does
     * not exist. On S3 one flat listing, 1,000 keys a request however many "folders" hold them
     * ({@link #list} asks once per folder); elsewhere a walk with {@link #list}.
     */
    public static List<ListedFile> listFilesBelow(Path folder) throws IOException {
        if (isObjectStore(folder)) {
            List<FileEntry> flat = S3Listing.files(folder, true, null);
            if (flat != null) {
                return listed(flat);
            }
        }
        List<ListedFile> files = new ArrayList<>();
        List<Path> pending = new ArrayList<>(List.of(folder));
        while (!pending.isEmpty()) {
            for (FileStatus child : list(pending.remove(pending.size() - 1))) {
                if (child.isDir()) {
                    pending.add(child.getPath());
                } else {
                    files.add(
                            new ListedFile(
                                    child.getPath(), child.getLen(), child.getModificationTime()));
                }
            }
        }
        return files;
    }

    private static List<ListedFile> listed(List<FileEntry> entries) {
        List<ListedFile> files = new ArrayList<>(entries.size());
        for (FileEntry e : entries) {
            files.add(new ListedFile(e.path(), e.length(), e.modificationTime()));
        }
        return files;
    }

    /** Creates a folder and its parents (nothing to do on an object store). */
    public static void createFolders(Path folder) throws IOException {
        if (!isObjectStore(folder)) {
            folder.getFileSystem().mkdirs(folder);
        }
    }

    /** Deletes a file, or a folder with everything below it; nothing if it does not exist. */
    public static void deleteTree(Path path) throws IOException {
        FileSystem fs = path.getFileSystem();
        if (fs.exists(path)) {
            fs.delete(path, true);
        }
    }

    /** Deletes one file; false if there was none. */
    public static boolean delete(Path file) throws IOException {
        return file.getFileSystem().delete(file, false);
    }

    private static String schemeOf(String given) {
        int colon = given.indexOf(':');
        if (colon <= 0) {
            return null;
        }
        for (int i = 0; i < colon; i++) {
            char c = given.charAt(i);
            if (!(Character.isLetterOrDigit(c) || c == '+' || c == '-' || c == '.')) {
                return null;
            }
        }
        return given.substring(0, colon);
    }
}
