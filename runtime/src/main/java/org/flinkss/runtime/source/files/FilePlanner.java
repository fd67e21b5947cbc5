package org.flinkss.runtime.source.files;

import org.apache.flink.core.fs.Path;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.flinkss.runtime.progress.SourcePlan;
import org.flinkss.runtime.source.ReadLimit;
import org.flinkss.runtime.source.SplitPlanner;
import org.flinkss.runtime.storage.ListedFile;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.trigger.Trigger;

import java.io.File;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Plans micro-batches over a folder, as Spark's file stream source: every file whose name ends with
 * the suffix, below the folder (recursively), oldest first, each read once. Names starting with
 * {@code .} or {@code _} are skipped, files and folders alike: they are in-progress part files,
 * markers such as {@code _SUCCESS} and checksums, never data. Links are followed, as Spark follows
 * them: the folder itself may be a link, and so may files and folders inside ({@link #walk}). What
 * is passed over (other names, links to nothing, a link back to an ancestor) is logged once per
 * run.
 *
 * <p>The committed position is the set of files already read, by their path relative to the folder:
 * a file that is rewritten under the same name is not read again, as in Spark.
 *
 * <p>A batch takes at most {@code maxFilesPerTrigger} files and, with {@code maxBytesPerTrigger},
 * files while it stays within that many bytes (a soft limit: a batch always takes at least one
 * file); see {@link ReadLimit}. Its files are then listed as Spark's file scan reads a batch
 * ({@code FileSourceScanExec}: largest first, files of one size oldest first), the order its {@code
 * dropDuplicates} and an upsert of its rows follow (docs/semantics.md).
 *
 * <p>The folder is on a local disk or on an object store ({@code s3://bucket/prefix}). A local
 * folder is walked with {@code java.nio} ({@link #walk}), which follows links as Spark does; an
 * object store, which has no links, is listed with Flink's {@code FileSystem.listStatus}, one
 * listing per prefix, and the listing's sizes and modification times are used as they are: no
 * request per file. The same names are read in the same order, under the same keys.
 */
public final class FilePlanner implements SplitPlanner<FileSplit> {

    /** How often a real-time run lists a landing folder on an object store. */
    static final Duration OBJECT_STORE_REAL_TIME_LOOK = Duration.ofSeconds(1);

    private static final long serialVersionUID = 1L;

    private static final Logger LOG = LoggerFactory.getLogger(FilePlanner.class);

    /** The local folder's absolute path, or the object store folder's URI. */
    private final String root;

    private final boolean local;
    private final String suffix;

    private transient Set<String> processed;
    private transient long commits;
    private transient List<Listed> target;
    private transient Set<String> warned;

    /** A file of the last listing: where it is, its key, and its size if the listing said it. */
    private record Listed(String location, String key, long size) {}

    /**
     * A folder on any storage Flink's file system serves: a local one ({@code file:}) is walked
     * ({@link LocalFolderWalk}), any other listed with Flink's file system.
     */
    public FilePlanner(Path root, String suffix) {
        this.local = Storage.isLocal(root);
        this.root =
                local
                        ? Storage.localFile(root, "the source folder")
                                .toPath()
                                .toAbsolutePath()
                                .normalize()
                                .toString()
                        : withoutTrailingSlash(root.toUri().normalize().toString());
        this.suffix = suffix;
    }

    /** The folder on any storage. */
    public Path location() {
        return local ? Storage.location(new File(root)) : new Path(root);
    }

    /** The folder as Spark's {@code FileStreamSource[...]} description names it. */
    public String describe() {
        return local ? new File(root).toPath().toUri().toString() : root + "/";
    }

    @Override
    public void restore(byte[] committed) throws IOException {
        processed = new HashSet<>();
        commits = 0;
        target = new ArrayList<>();
        if (committed != null) {
            DataInputDeserializer in = new DataInputDeserializer(committed);
            commits = in.readLong();
            int n = in.readInt();
            processed = new HashSet<>(Math.max(16, (int) (n / 0.75f) + 1));
            for (int i = 0; i < n; i++) {
                processed.add(in.readUTF());
            }
        }
    }

    @Override
    public byte[] committed() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64 + processed.size() * 64);
        out.writeLong(commits);
        out.writeInt(processed.size());
        for (String key : processed) {
            out.writeUTF(key);
        }
        return out.getCopyOfBuffer();
    }

    @Override
    public void refreshTarget() throws IOException {
        List<Listed> listed = new ArrayList<>();
        if (local) {
            LocalFolderWalk.Listing listing = LocalFolderWalk.walk(new File(root).toPath(), suffix);
            for (LocalFolderWalk.Keyed file : LocalFolderWalk.keyed(root, listing)) {
                listed.add(new Listed(file.location(), file.key(), -1));
            }
            warnOnce(listing);
        } else {
            List<String> other = new ArrayList<>();
            listObjects(location(), suffix, listed, other);
            warnOtherNames(other);
        }
        target = listed;
    }

    /**
     * The visible objects below {@code folder} whose names end with {@code suffix}, oldest first
     * (then by name), with keys relative to {@code folder}; {@code other} gets the keys of visible
     * objects with other names. A name is visible when no part of its key starts with {@code .} or
     * {@code _}. One flat listing ({@link Storage#listFilesBelow}): S3A lists 1,000 keys a request
     * with their sizes and modification times, however many batch folders hold them.
     */
    private static void listObjects(
            Path folder, String suffix, List<Listed> files, List<String> other) throws IOException {
        record Found(String location, String key, long modified, long size) {}
        List<Found> found = new ArrayList<>();
        String rootPath = withoutTrailingSlash(folder.toUri().getPath());
        for (ListedFile file : Storage.listFilesBelow(folder)) {
            Path path = file.path();
            String key = path.toUri().getPath().substring(rootPath.length() + 1);
            if (hiddenKey(key)) {
                continue;
            }
            if (path.getName().endsWith(suffix)) {
                found.add(
                        new Found(
                                path.toUri().toString(),
                                key,
                                file.modificationTime(),
                                file.length()));
            } else {
                other.add(key);
            }
        }
        found.sort(Comparator.comparingLong(Found::modified).thenComparing(Found::location));
        for (Found f : found) {
            files.add(new Listed(f.location(), f.key(), f.size()));
        }
        other.sort(Comparator.naturalOrder());
    }

    /**
     * Whether a part of {@code key} (a path below the folder) starts with {@code .} or {@code _}.
     */
    static boolean hiddenKey(String key) {
        for (String part : key.split("/")) {
            if (part.startsWith(".") || part.startsWith("_")) {
                return true;
            }
        }
        return false;
    }

    private static String withoutTrailingSlash(String path) {
        return path.endsWith("/") && path.length() > 1
                ? path.substring(0, path.length() - 1)
                : path;
    }

    /** Says once per run what the walk passed over, so that nothing is left out silently. */
    private void warnOnce(LocalFolderWalk.Listing listing) {
        if (warned == null) {
            warned = new HashSet<>();
        }
        for (var link : listing.cycles()) {
            if (warned.add("cycle " + link)) {
                LOG.warn(
                        "Source folder {}: the link {} leads back to a folder that contains it; it"
                                + " is not followed again, so each file below it is read once",
                        root,
                        link);
            }
        }
        for (var link : listing.brokenLinks()) {
            if (warned.add("broken " + link)) {
                LOG.warn("Source folder {}: {} is a link to nothing; not read", root, link);
            }
        }
        warnOtherNames(LocalFolderWalk.otherKeys(root, listing));
    }

    /** Says once per run which files (keys below the folder) are not read for their names. */
    private void warnOtherNames(List<String> keys) {
        if (warned == null) {
            warned = new HashSet<>();
        }
        List<String> other = new ArrayList<>();
        for (String key : keys) {
            if (warned.add("other " + key)) {
                other.add(key);
            }
        }
        if (!other.isEmpty()) {
            LOG.warn(
                    "Source folder {}: {} not read: only files named *{} are, as Spark's"
                            + " pathGlobFilter '*{}' reads them (a compressed file, such as"
                            + " .json.gz, too: decompress it to a *{} file to have it read): {}",
                    root,
                    other.size() == 1 ? "1 file is" : other.size() + " files are",
                    suffix,
                    suffix,
                    suffix,
                    other.size() <= 10
                            ? String.join(", ", other)
                            : String.join(", ", other.subList(0, 10))
                                    + " and "
                                    + (other.size() - 10)
                                    + " more");
        }
    }

    @Override
    public List<FileSplit> nextBatch(long batchId, ReadLimit limit) {
        int maxUnits = limit.maxUnits();
        long maxBytesPerBatch = limit.maxBytesPerTrigger().orElse(Long.MAX_VALUE);
        List<FileSplit> batch = new ArrayList<>();
        long bytes = 0;
        for (Listed file : target) {
            if (batch.size() >= maxUnits) {
                break;
            }
            if (!processed.contains(file.key())) {
                long size =
                        file.size() >= 0 ? file.size() : LocalFolderWalk.sizeOf(file.location());
                if (maxBytesPerBatch != Long.MAX_VALUE) {
                    if (!batch.isEmpty() && bytes + size > maxBytesPerBatch) {
                        break;
                    }
                    bytes += size;
                }
                batch.add(new FileSplit(file.location(), file.key(), batchId, 0, size));
            }
        }
        // Which files a batch takes goes by age, as in Spark's file stream source; the batch is
        // then read as Spark's file scan reads it: largest file first (a stable sort, so files of
        // one size stay oldest first). Readers that keep this order (ReadOrder.CONTIGUOUS) write
        // a table whose rows are in the order Spark's bronze reads them.
        batch.sort(Comparator.comparingLong(FileSplit::sizeInBytes).reversed());
        return batch;
    }

    /**
     * The files not yet processed, cut into batches as {@link #nextBatch} cuts them: a batch takes
     * files in the listing's order up to the file limit, and while it stays within the byte limit
     * (one file at least).
     */
    @Override
    public Optional<SourcePlan.Backlog> backlog(ReadLimit limit) {
        int maxUnits = limit.maxUnits();
        long maxBytesPerBatch = limit.maxBytesPerTrigger().orElse(Long.MAX_VALUE);
        long batches = 0;
        long files = 0;
        long bytes = 0;
        int inBatch = 0;
        long batchBytes = 0;
        for (Listed file : target) {
            if (processed.contains(file.key())) {
                continue;
            }
            long size = file.size() >= 0 ? file.size() : LocalFolderWalk.sizeOf(file.location());
            if (inBatch == 0 || inBatch >= maxUnits || batchBytes + size > maxBytesPerBatch) {
                batches++;
                inBatch = 0;
                batchBytes = 0;
            }
            inBatch++;
            batchBytes += size;
            files++;
            bytes += size;
        }
        return Optional.of(SourcePlan.Backlog.ofFiles(batches, files, bytes));
    }

    @Override
    public boolean nextBatchIsEmpty() {
        for (Listed file : target) {
            if (!processed.contains(file.key())) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void commit(List<FileSplit> batch) {
        for (FileSplit split : batch) {
            processed.add(split.key());
        }
        commits++;
    }

    @Override
    public boolean readsInRealTime() {
        return true;
    }

    /**
     * Every {@link Trigger#REAL_TIME_POLL} on the local disk; once a second on an object store,
     * where a look is list requests (the folder, then each batch folder): a hundred looks a second
     * would be millions of requests a day while nothing lands.
     */
    @Override
    public Duration realTimeLook() {
        return local ? Trigger.REAL_TIME_POLL : OBJECT_STORE_REAL_TIME_LOOK;
    }

    @Override
    public Map<String, Object> describeOffsets() {
        Map<String, Object> offsets = new LinkedHashMap<>();
        offsets.put("logOffset", commits - 1);
        offsets.put("files", processed.size());
        return offsets;
    }

    @Override
    public SimpleVersionedSerializer<FileSplit> splitSerializer() {
        return new FileSplit.Serializer(root);
    }
}
