package org.flinkss.runtime.storage.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.Path;

import javax.annotation.Nullable;

import java.lang.reflect.Method;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Optional;
import java.util.Set;

/**
 * One line for a request to S3 that failed because of the setup rather than the data: the endpoint
 * does not answer, the bucket does not exist, the credentials are refused. Says the endpoint, the
 * bucket and path, and the configuration keys to check, instead of S3A's message and a stack of a
 * hundred lines.
 *
 * <p>What happened is read from the types and fields of the failure and its causes, never from
 * messages: the {@code java.net} and {@code java.nio.file} exceptions S3A and its AWS SDK v1 throw
 * or wrap (shared by every class loader, so seen through the S3 plugin's), and the S3 error code
 * and HTTP status of an SDK service exception ({@code getErrorCode}, {@code getStatusCode}, by
 * reflection since the SDK's classes are the plugin's).
 */
@Internal
public final class S3Failures {

    private static final int FORBIDDEN = 403;
    private static final int NOT_FOUND = 404;
    private static final Set<String> CREDENTIAL_CODES =
            Set.of(
                    "InvalidAccessKeyId",
                    "SignatureDoesNotMatch",
                    "AccessDenied",
                    "InvalidSecurity",
                    "ExpiredToken");

    private static volatile Settings settings = Settings.NONE;

    private S3Failures() {}

    /**
     * Where this process's S3 settings came from: the configuration its file systems were made
     * with, and the file that holds it (for the message), or null when Flink made them.
     */
    public static void settingsFrom(Configuration conf, @Nullable String source) {
        settings =
                new Settings(
                        conf.getString("s3.endpoint", null),
                        source != null ? source : "the Flink configuration of this process");
    }

    /** The line for {@code error} met at {@code location}, or empty for any other failure. */
    public static Optional<String> explain(@Nullable Path location, Throwable error) {
        Settings s = settings;
        String path = location != null ? location.toString() : pathIn(error);
        String where = path != null ? " for " + path : "";
        String endpoint = s.endpoint != null ? s.endpoint : "(no s3.endpoint: AWS S3)";
        String bucket = bucketOf(path);
        if (!(location != null && Locations.isObjectStore(location)) && !fromS3(error)) {
            return Optional.empty();
        }
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = error; t != null && seen.add(t); t = t.getCause()) {
            String unreachable = unreachableReason(t);
            if (unreachable != null) {
                return Optional.of(
                        "cannot reach S3 at "
                                + endpoint
                                + where
                                + " ("
                                + unreachable
                                + "): check s3.endpoint in "
                                + s.source
                                + " and that the server runs and answers there (the local"
                                + " S3Proxy: scripts/s3 status). s3.attempts.maximum,"
                                + " s3.retry.limit, s3.connection.establish.timeout"
                                + (t instanceof SocketTimeoutException
                                        ? " and s3.connection.timeout"
                                        : "")
                                + " there bound how long this took");
            }
            String code = errorCode(t);
            int status = statusCode(t);
            if ("NoSuchBucket".equals(code)
                    || t.getClass().getName().endsWith(".UnknownStoreException")) {
                return Optional.of(
                        "the bucket "
                                + (bucket != null ? "'" + bucket + "' " : "")
                                + "does not exist at S3 "
                                + endpoint
                                + where
                                + ": create it, or give a location in a bucket that exists;"
                                + " check s3.endpoint in "
                                + s.source);
            }
            if (t instanceof AccessDeniedException
                            && isS3Path(((AccessDeniedException) t).getFile())
                    || code != null && CREDENTIAL_CODES.contains(code)
                    || status == FORBIDDEN) {
                return Optional.of(
                        "S3 at "
                                + endpoint
                                + " refused the credentials"
                                + where
                                + " ("
                                + (code != null ? code : "access denied")
                                + "): check s3.access-key and s3.secret-key in "
                                + s.source
                                + ", or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (when both"
                                + " are set they win), and that they may use bucket "
                                + (bucket != null ? "'" + bucket + "'" : "of the path"));
            }
            if (status == NOT_FOUND && code == null && bucket != null && isServiceError(t)) {
                // A 404 with no S3 error code: an HTTP server that is not S3 at that address.
                return Optional.of(
                        "S3 at "
                                + endpoint
                                + " answered 404 with no S3 error"
                                + where
                                + ": is it an S3 server? check s3.endpoint in "
                                + s.source);
            }
        }
        return Optional.empty();
    }

    /** Whether S3A or its AWS SDK threw or wrapped {@code error} (or one of its causes). */
    private static boolean fromS3(Throwable error) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = error; t != null && seen.add(t); t = t.getCause()) {
            String name = t.getClass().getName();
            if (name.startsWith("com.amazonaws.") || name.startsWith("org.apache.hadoop.fs.s3a.")) {
                return true;
            }
        }
        return false;
    }

    /**
     * The S3 path a failure names in a field: S3A's {@code PathIOException#getPath} (by reflection:
     * the plugin's class), {@code java.nio.file.FileSystemException#getFile}.
     */
    @Nullable
    private static String pathIn(Throwable error) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = error; t != null && seen.add(t); t = t.getCause()) {
            String file = null;
            if (t instanceof FileSystemException) {
                file = ((FileSystemException) t).getFile();
            } else {
                try {
                    Object p = t.getClass().getMethod("getPath").invoke(t);
                    file = p instanceof String ? (String) p : null;
                } catch (ReflectiveOperationException | RuntimeException e) {
                    // not a PathIOException
                }
            }
            if (isS3Path(file)) {
                return file;
            }
        }
        return null;
    }

    @Nullable
    private static String bucketOf(@Nullable String path) {
        if (path == null) {
            return null;
        }
        try {
            return URI.create(path).getHost();
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static boolean isS3Path(@Nullable String file) {
        return file != null && (file.startsWith("s3:") || file.startsWith("s3a:"));
    }

    /** Why the endpoint could not be reached, or null if {@code t} does not say so. */
    @Nullable
    private static String unreachableReason(Throwable t) {
        if (t instanceof UnknownHostException) {
            return "unknown host " + t.getMessage();
        }
        if (t instanceof NoRouteToHostException) {
            return "no route to the host";
        }
        if (t instanceof ConnectException) {
            return "connection refused";
        }
        if (t instanceof SocketTimeoutException) {
            return "no answer in time";
        }
        return null;
    }

    private static boolean isServiceError(Throwable t) {
        return errorCodeMethod(t) != null;
    }

    @Nullable
    private static Method errorCodeMethod(Throwable t) {
        try {
            return t.getClass().getMethod("getErrorCode");
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    @Nullable
    private static String errorCode(Throwable t) {
        Method m = errorCodeMethod(t);
        if (m == null) {
            return null;
        }
        try {
            Object code = m.invoke(t);
            return code instanceof String && !((String) code).isBlank() ? (String) code : null;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private static int statusCode(Throwable t) {
        return S3Clients.statusOf(t);
    }

    private record Settings(@Nullable String endpoint, String source) {
        static final Settings NONE = new Settings(null, "the Flink configuration (s3.* keys)");
    }
}
