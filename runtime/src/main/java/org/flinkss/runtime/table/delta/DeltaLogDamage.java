package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.flinkss.runtime.storage.Storage;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What in a table's {@code _delta_log} Delta Kernel cannot read, found by looking at the files
 * themselves (never at Kernel's exception): a commit that is empty or not JSON lines (truncated), a
 * checkpoint Parquet file without Parquet's magic bytes at both ends (truncated), a {@code
 * _last_checkpoint} that is not JSON or names a checkpoint that is missing, a {@code .crc} that is
 * not JSON. Each finding says the last version the table can fall back to and the files to move
 * aside for that ({@link DeltaLogRepair}).
 */
public final class DeltaLogDamage {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern COMMIT = Pattern.compile("(\\d{20})\\.json");
    private static final Pattern CHECKPOINT = Pattern.compile("(\\d{20})\\.checkpoint.*\\.parquet");
    private static final Pattern CRC = Pattern.compile("(\\d{20})\\.crc");
    private static final String LAST_CHECKPOINT = "_last_checkpoint";
    private static final byte[] PARQUET_MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);

    /** The damaged files, what is wrong with the first, and the version the table falls back to. */
    private final List<Path> damaged;

    private final String what;
    private final long fallback;
    private final String table;

    private DeltaLogDamage(
            Path named, List<Path> damaged, String what, long fallback, String table) {
        List<Path> files = new ArrayList<>(damaged);
        files.remove(named);
        files.add(0, named);
        this.damaged = List.copyOf(files);
        this.what = what;
        this.fallback = fallback;
        this.table = table;
    }

    /** The files to move aside, the first being the one {@link #message} names. */
    public List<Path> files() {
        return damaged;
    }

    /** Whether {@code name} is a Delta commit's file name ({@code 00000000000000000007.json}). */
    static boolean isCommit(String name) {
        return COMMIT.matcher(name).matches();
    }

    /** Whether commits go aside: the rows of those versions leave the table. */
    public boolean dropsVersions() {
        return damaged.stream().anyMatch(f -> isCommit(f.getName()));
    }

    /** The version the table is read at once the damaged files are moved aside. */
    public long fallbackVersion() {
        return fallback;
    }

    /** One line: the file, what is wrong with it, and the way out. */
    public String message() {
        String damage =
                "the Delta log of table '" + table + "' is damaged: " + damaged.get(0) + " " + what;
        if (fallback < 0) {
            return damage
                    + ", and no readable version is left to fall back to (its earlier commits were"
                    + " cleaned up): reset the query that writes it to rebuild the table";
        }
        return damage
                + "; run 'table repair "
                + table
                + "' to fall back to version "
                + fallback
                + ", the last readable one (it moves "
                + damaged.size()
                + " file(s) aside, deleting nothing)";
    }

    /**
     * The damage in the log of the table at {@code tablePath}, if any. A commit's damage wins: the
     * table falls back to the version before it, and every later log file goes aside too.
     */
    public static Optional<DeltaLogDamage> find(String tablePath) {
        Path log = new Path(tablePath, "_delta_log");
        String table = new Path(tablePath).getName();
        try {
            FileSystem fs = log.getFileSystem();
            if (!fs.exists(log)) {
                return Optional.empty();
            }
            FileStatus[] listed = fs.listStatus(log);
            if (listed == null) {
                return Optional.empty();
            }
            TreeMap<Long, Path> commits = new TreeMap<>();
            TreeMap<Long, List<Path>> checkpoints = new TreeMap<>();
            TreeMap<Long, Path> crcs = new TreeMap<>();
            Path lastCheckpoint = null;
            for (FileStatus s : listed) {
                String name = s.getPath().getName();
                Matcher m;
                if ((m = COMMIT.matcher(name)).matches()) {
                    commits.put(Long.parseLong(m.group(1)), s.getPath());
                } else if ((m = CHECKPOINT.matcher(name)).matches()) {
                    checkpoints
                            .computeIfAbsent(Long.parseLong(m.group(1)), v -> new ArrayList<>())
                            .add(s.getPath());
                } else if ((m = CRC.matcher(name)).matches()) {
                    crcs.put(Long.parseLong(m.group(1)), s.getPath());
                } else if (name.equals(LAST_CHECKPOINT)) {
                    lastCheckpoint = s.getPath();
                }
            }
            if (commits.isEmpty()) {
                return Optional.empty();
            }
            // A commit: it and every later log file go aside, the table falls back before it.
            for (var commit : commits.entrySet()) {
                String wrong = jsonLinesProblem(fs, commit.getValue());
                if (wrong != null) {
                    long from = commit.getKey();
                    List<Path> aside = new ArrayList<>();
                    aside.add(commit.getValue());
                    commits.tailMap(from, false).values().forEach(aside::add);
                    checkpoints.tailMap(from, true).values().forEach(aside::addAll);
                    crcs.tailMap(from, true).values().forEach(aside::add);
                    if (lastCheckpoint != null
                            && checkpointVersion(lastCheckpoint).orElse(from) >= from) {
                        aside.add(lastCheckpoint);
                    }
                    return Optional.of(
                            new DeltaLogDamage(commit.getValue(), aside, wrong, from - 1, table));
                }
            }
            long newest = commits.lastKey();
            List<Path> aside = new ArrayList<>();
            String first = null;
            Path named = null;
            for (List<Path> parts : checkpoints.values()) {
                for (Path part : parts) {
                    if (!isParquet(fs, part)) {
                        if (first == null) {
                            first = "is not a whole Parquet file (truncated?)";
                            named = part;
                        }
                        aside.addAll(parts);
                        break;
                    }
                }
            }
            if (lastCheckpoint != null) {
                Optional<Long> version = checkpointVersion(lastCheckpoint);
                if (version.isEmpty()) {
                    if (first == null) {
                        first = "is not JSON";
                        named = lastCheckpoint;
                    }
                    aside.add(lastCheckpoint);
                } else if (!checkpoints.containsKey(version.get())
                        || aside.containsAll(checkpoints.get(version.get()))) {
                    if (first == null) {
                        first =
                                "names the checkpoint of version "
                                        + version.get()
                                        + ", which is missing";
                        named = lastCheckpoint;
                    }
                    aside.add(lastCheckpoint);
                }
            }
            for (Path crc : crcs.values()) {
                if (jsonLinesProblem(fs, crc) != null) {
                    if (first == null) {
                        first = "is not JSON";
                        named = crc;
                    }
                    aside.add(crc);
                }
            }
            if (aside.isEmpty()) {
                return Optional.empty();
            }
            // Without its checkpoint the table is read from its commits: all must be there.
            boolean checkpointAside =
                    aside.stream().anyMatch(f -> CHECKPOINT.matcher(f.getName()).matches());
            long fallback = checkpointAside && commits.firstKey() > 0 ? -1 : newest;
            return Optional.of(new DeltaLogDamage(named, aside, first, fallback, table));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the Delta log " + log, e);
        }
    }

    /** Null when the file holds one JSON object per line, else what is wrong with it. */
    private static String jsonLinesProblem(FileSystem fs, Path file) throws IOException {
        int lines = 0;
        try (FSDataInputStream in = fs.open(file);
                BufferedReader reader =
                        new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                lines++;
                if (line.isBlank()) {
                    continue;
                }
                try {
                    if (!JSON.readTree(line).isObject()) {
                        return "has line " + lines + " that is not a JSON object";
                    }
                } catch (IOException e) {
                    return "is not whole JSON at line " + lines + " (truncated?)";
                }
            }
        }
        return lines == 0 ? "is empty" : null;
    }

    private static Optional<Long> checkpointVersion(Path lastCheckpoint) {
        // Through the project's reader of small files: Delta replaces _last_checkpoint whole, and
        // one replaced while it is read is read again (Storage.readBytes).
        try {
            JsonNode node = JSON.readTree(Storage.readBytes(lastCheckpoint));
            return node != null && node.path("version").isIntegralNumber()
                    ? Optional.of(node.path("version").asLong())
                    : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static boolean isParquet(FileSystem fs, Path file) throws IOException {
        long length = fs.getFileStatus(file).getLen();
        if (length < 12) {
            return false;
        }
        byte[] head = new byte[4];
        byte[] tail = new byte[4];
        try (FSDataInputStream in = fs.open(file)) {
            in.readNBytes(head, 0, 4);
            in.seek(length - 4);
            in.readNBytes(tail, 0, 4);
        }
        return Arrays.equals(head, PARQUET_MAGIC) && Arrays.equals(tail, PARQUET_MAGIC);
    }
}
