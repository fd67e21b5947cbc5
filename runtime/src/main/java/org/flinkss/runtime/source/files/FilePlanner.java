package org.flinkss.runtime.source.files;

import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import org.flinkss.runtime.source.SplitPlanner;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Plans micro-batches over a folder, as Spark's file stream source: every file whose name ends with
 * the suffix, below the folder (recursively), oldest first, each read once. Names starting with
 * {@code .} or {@code _} are skipped, files and folders alike: they are in-progress part files,
 * markers such as {@code _SUCCESS} and checksums, never data.
 *
 * <p>The committed position is the set of files already read, by their path relative to the folder:
 * a file that is rewritten under the same name is not read again, as in Spark.
 *
 * <p>Besides the runner's file limit ({@code maxFilesPerTrigger}), a batch can be limited in bytes,
 * as Spark's {@code maxBytesPerTrigger}: a soft limit, files are added while the batch stays within
 * it, and a batch always takes at least one file.
 */
public final class FilePlanner implements SplitPlanner<FileSplit> {

    private static final long serialVersionUID = 1L;

    private final String root;
    private final String suffix;
    private final long maxBytesPerBatch;

    private transient Set<String> processed;
    private transient long commits;
    private transient List<Path> target;

    public FilePlanner(Path root, String suffix) {
        this(root, suffix, 0);
    }

    /**
     * @param maxBytesPerBatch at most this many bytes of files per batch (but one file at least); 0
     *     for no limit
     */
    public FilePlanner(Path root, String suffix, long maxBytesPerBatch) {
        this.root = root.toAbsolutePath().normalize().toString();
        this.suffix = suffix;
        this.maxBytesPerBatch = maxBytesPerBatch <= 0 ? Long.MAX_VALUE : maxBytesPerBatch;
    }

    public Path root() {
        return Paths.get(root);
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
        target = list(Paths.get(root), suffix);
    }

    /** The visible files below {@code root} whose names end with {@code suffix}, oldest first. */
    public static List<Path> list(Path root, String suffix) throws IOException {
        if (!Files.isDirectory(root)) {
            return new ArrayList<>();
        }
        List<Object[]> found = new ArrayList<>();
        Files.walkFileTree(
                root,
                new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                        return !dir.equals(root) && hidden(dir)
                                ? FileVisitResult.SKIP_SUBTREE
                                : FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                        if (attrs.isRegularFile()
                                && !hidden(file)
                                && file.getFileName().toString().endsWith(suffix)) {
                            found.add(new Object[] {file, attrs.lastModifiedTime().toMillis()});
                        }
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFileFailed(Path file, IOException e)
                            throws IOException {
                        // A folder replaced while we walk (land-events overwrites batches): skip
                        // it.
                        if (e instanceof NoSuchFileException) {
                            return FileVisitResult.CONTINUE;
                        }
                        throw e;
                    }
                });
        found.sort(
                Comparator.<Object[]>comparingLong(f -> (Long) f[1])
                        .thenComparing(f -> f[0].toString()));
        List<Path> files = new ArrayList<>(found.size());
        for (Object[] f : found) {
            files.add((Path) f[0]);
        }
        return files;
    }

    static boolean hidden(Path path) {
        String name = path.getFileName().toString();
        return name.startsWith(".") || name.startsWith("_");
    }

    private String key(Path file) {
        return Paths.get(root).relativize(file).toString();
    }

    @Override
    public List<FileSplit> nextBatch(long batchId, int maxUnits) {
        List<FileSplit> batch = new ArrayList<>();
        long bytes = 0;
        for (Path file : target) {
            if (batch.size() >= maxUnits) {
                break;
            }
            String key = key(file);
            if (!processed.contains(key)) {
                if (maxBytesPerBatch != Long.MAX_VALUE) {
                    long size = sizeOf(file);
                    if (!batch.isEmpty() && bytes + size > maxBytesPerBatch) {
                        break;
                    }
                    bytes += size;
                }
                batch.add(new FileSplit(file.toString(), key, batchId, 0));
            }
        }
        return batch;
    }

    private static long sizeOf(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return 0; // gone: the reader says so, with the file's name
        }
    }

    @Override
    public boolean nextBatchIsEmpty() {
        for (Path file : target) {
            if (!processed.contains(key(file))) {
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
    public Map<String, Object> describeOffsets() {
        Map<String, Object> offsets = new LinkedHashMap<>();
        offsets.put("logOffset", commits - 1);
        offsets.put("files", processed.size());
        return offsets;
    }

    @Override
    public SimpleVersionedSerializer<FileSplit> splitSerializer() {
        return new FileSplit.Serializer();
    }
}
