package org.flinkss.jobs.cli.options;

import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.ops.StorageSetup;
import org.flinkss.runtime.storage.Storage;

import java.io.File;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;

/**
 * What the commands may do with {@code --base}, checked before anything runs, each refusal one line
 * that says what to do. Only the commands that land data create a base that does not exist: any
 * other command given a path that does not exist (a typo, the wrong folder) says so instead of
 * running over nothing in a new folder. A local base is checked as the local folder it is (exists,
 * is a folder, takes a new file): those are questions only a local file system answers.
 */
public final class BaseFolder {

    private BaseFolder() {}

    /** land-events and land-customers: the base is made if need be, and must take new files. */
    public static void createForLanding(File base) {
        refuseFile(base);
        try {
            Files.createDirectories(base.toPath());
        } catch (IOException e) {
            throw new QueryException(
                    "cannot create --base " + base + " (" + reason(e) + "): " + WRITABLE, e);
        }
        requireWritable(base);
    }

    /**
     * land-events and land-customers with {@code --base} of {@code data}: a local base as {@link
     * #createForLanding(File)} says; on an object store, where folders need no making, Flink's file
     * systems are made ready and the base is listed once, so that a missing bucket, a wrong
     * endpoint or credentials are said before anything is computed.
     */
    public static void createForLanding(DataOptions data) {
        if (!data.objectStoreBase()) {
            createForLanding(data.localBase());
            return;
        }
        Path base = data.base();
        StorageSetup.initialize(null);
        try {
            Storage.list(base);
        } catch (IOException e) {
            throw new QueryException(
                    Storage.explainFailure(base, e)
                            .orElse(
                                    "cannot reach --base "
                                            + base
                                            + " ("
                                            + firstLine(e)
                                            + "): check that the bucket exists and the S3"
                                            + " endpoint and credentials (s3.* in"
                                            + " flink-conf/config.yaml, or AWS_ACCESS_KEY_ID and"
                                            + " AWS_SECRET_ACCESS_KEY)"),
                    e);
        }
    }

    /**
     * A run: the base must exist and take new files; a query that reads the landing folder needs
     * that folder too.
     */
    public static void requireForRun(File base, File landing, boolean readsLanding) {
        refuseFile(base);
        String command = "(land-events --base " + base + " --batch 1 --start 0)";
        String holds = ", or give the --base that holds them";
        if (!base.exists()) {
            throw new QueryException(
                    "--base "
                            + base
                            + " does not exist"
                            + (readsLanding
                                    ? ": land events there first " + command + holds
                                    : " (only land-events and land-customers create one): give the"
                                            + " base the queries ran in, or create the folder"
                                            + " first if it is meant to be a new one"));
        }
        if (readsLanding && !landing.isDirectory()) {
            throw new QueryException(
                    "the landing folder "
                            + landing
                            + " does not exist: land events first "
                            + command
                            + holds);
        }
        requireWritable(base);
    }

    /** The report reads a base that the queries ran in. */
    public static void requireForReport(File base) {
        refuseFile(base);
        if (!base.exists()) {
            throw new QueryException(
                    "--base "
                            + base
                            + " does not exist: nothing to report; give the base the queries ran"
                            + " in");
        }
    }

    /**
     * The report of a base on an object store: something must be under it (an object store has no
     * empty folders).
     */
    public static void requireForReport(Path base) {
        if (!hasObjects(base)) {
            throw new QueryException(
                    "--base "
                            + base
                            + " holds nothing: nothing to report; give the base the queries ran"
                            + " in");
        }
    }

    /**
     * A run with the base of {@code data}: a local base as {@link #requireForRun(File, File,
     * boolean)} says. On an object store, which has no empty folders, something must be under the
     * base, and under its landing prefix {@code <base>/events/} for a query that reads it; the
     * first listing also says a missing bucket, a wrong endpoint or credentials before anything
     * runs.
     */
    public static void requireForRun(DataOptions data, boolean readsLanding) {
        requireForRun(data, readsLanding, false);
    }

    /**
     * {@link #requireForRun(DataOptions, boolean)}; a query that reads a Kafka topic ({@code
     * readsTopic}) may start on an S3 base with nothing under it yet, since an object store has no
     * empty folder a user could make first: it is said in one line (a mistyped prefix shows), not
     * refused. The listing still says a missing bucket, a wrong endpoint or credentials.
     */
    public static void requireForRun(DataOptions data, boolean readsLanding, boolean readsTopic) {
        if (!data.objectStoreBase()) {
            requireForRun(data.localBase(), new File(data.localBase(), "events"), readsLanding);
            return;
        }
        StorageSetup.initialize(null);
        Path base = data.base();
        String command = "(land-events --base " + base + " --batch 1 --start 0)";
        if (readsLanding && !hasObjects(data.events())) {
            throw new QueryException(
                    "the landing prefix "
                            + data.events()
                            + " holds nothing: land events first "
                            + command
                            + ", or give the --base that holds them");
        }
        if (!hasObjects(base)) {
            if (readsTopic) {
                System.err.println(
                        "note: --base "
                                + base
                                + " holds nothing yet: this run starts its checkpoint and tables"
                                + " there");
                return;
            }
            throw new QueryException(
                    "--base "
                            + base
                            + " holds nothing (only land-events and land-customers start one):"
                            + " give the base the queries ran in");
        }
    }

    /**
     * A location on an object store that a command is about to read: listed once, so that a wrong
     * endpoint, credentials or bucket is said in one line naming {@code option} and what to check.
     */
    public static void requireReachable(Path location, String option) {
        try {
            Storage.list(location);
        } catch (IOException e) {
            throw new QueryException(
                    Storage.explainFailure(location, e)
                            .orElse("cannot read " + option + " " + location + ": " + firstLine(e)),
                    e);
        }
    }

    private static boolean hasObjects(Path base) {
        try {
            return !Storage.list(base).isEmpty();
        } catch (IOException e) {
            throw new QueryException(
                    Storage.explainFailure(base, e)
                            .orElse("cannot read --base " + base + ": " + firstLine(e)),
                    e);
        }
    }

    private static String firstLine(IOException e) {
        return String.valueOf(e.getMessage()).split("\n")[0];
    }

    /**
     * A command that only reads, on any storage (the table commands): a local file is no base; a
     * base on an object store has nothing to check here.
     */
    public static void refuseFile(DataOptions data) {
        if (!data.objectStoreBase()) {
            refuseFile(data.localBase());
        }
    }

    /** A command that only reads: a file is no base. */
    public static void refuseFile(File base) {
        if (base == null) {
            throw new QueryException(
                    "this command needs --base on a local disk (a folder): land-events,"
                            + " land-customers, run, reset, report, progress, table and recompute"
                            + " take"
                            + " s3://bucket/prefix"
                            + " (docs/object-storage.md)");
        }
        if (base.exists() && !base.isDirectory()) {
            throw new QueryException(
                    "--base "
                            + base
                            + " is a file, not a folder: give the folder that holds (or is to"
                            + " hold) events/, _cp/ and warehouse/");
        }
    }

    private static final String WRITABLE = "give a folder you can write in";

    /**
     * Proves that the base takes new files by making one: permissions alone do not say it (root
     * passes every permission check, and still cannot write in /sys or on a read-only mount).
     */
    private static void requireWritable(File base) {
        try {
            Files.delete(Files.createTempFile(base.toPath(), ".flinkss-write-test-", ""));
        } catch (IOException e) {
            throw new QueryException(
                    "cannot write in --base " + base + " (" + reason(e) + "): " + WRITABLE, e);
        }
    }

    private static String reason(IOException e) {
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof FileSystemException && ((FileSystemException) e).getReason() != null) {
            return ((FileSystemException) e).getReason();
        }
        return e.getClass().getSimpleName();
    }
}
