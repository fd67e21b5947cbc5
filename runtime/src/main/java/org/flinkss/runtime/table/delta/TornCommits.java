package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.Path;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.flinkss.runtime.storage.ListedFile;
import org.flinkss.runtime.storage.Storage;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A Delta log's newest commit that a crash left torn, treated as absent. Commits are written whole
 * and forced to the disk ({@code Storage.createIfAbsent}), but a log written before that, or by
 * another writer, can end with a commit whose content never reached the disk: zero bytes, or a part
 * of its lines. Read as it is, that version would hold none or some of its batch's files and no
 * {@code txn} action, so the batch's next commit would be a new version and every reader of the
 * table would read the batch twice. Hidden instead, the table ends at the version before; the
 * query's next run finds its batch not committed ({@code txn}) and commits it again as
 * <em>that</em> version, over the torn file, which is set aside ({@code .<name>.torn-<id>}) just
 * before.
 *
 * <p>Only the newest commit, and only on a local disk: a torn commit with versions after it is
 * damage, not a crash's last write, and an object store's {@code PUT} is whole or absent.
 */
final class TornCommits {

    private static final Logger LOG = LoggerFactory.getLogger(TornCommits.class);

    private static final ObjectMapper JSON = new ObjectMapper();

    /** How much of a commit's end is read to find its last line: a line is far shorter. */
    private static final int TAIL_BYTES = 64 * 1024;

    /** The torn files already reported by this process: one line each, not one per listing. */
    private static final Set<String> REPORTED = ConcurrentHashMap.newKeySet();

    private TornCommits() {}

    /**
     * {@code listed} (a log listing in name order) without its newest commit and that version's
     * other files ({@code .crc}) when that commit is torn.
     */
    static List<ListedFile> withoutTornNewest(List<ListedFile> listed) throws IOException {
        ListedFile newest = null;
        for (ListedFile f : listed) {
            if (DeltaLogDamage.isCommit(f.name())) {
                newest = f;
            }
        }
        if (newest == null || !Storage.isLocal(newest.path())) {
            return listed;
        }
        String why = tornBecause(newest.path(), newest.length());
        if (why == null) {
            return listed;
        }
        if (REPORTED.add(newest.path() + "@" + newest.modificationTime())) {
            LOG.warn(
                    "Delta log entry {} is torn ({}): a writer crashed before it reached the"
                            + " disk. It is ignored (the table ends at the version before) and"
                            + " its batch will be committed again as this version by the next run"
                            + " of the table's query.",
                    Storage.shown(newest.path()),
                    why);
        }
        String prefix = newest.name().substring(0, 21); // "<20 digits>."
        List<ListedFile> kept = new ArrayList<>(listed.size());
        for (ListedFile f : listed) {
            if (!f.name().startsWith(prefix)) {
                kept.add(f);
            }
        }
        return kept;
    }

    /**
     * Before a commit is written as {@code target}: a torn entry there (see {@link
     * #withoutTornNewest}, which hid it) is renamed aside, so that the commit takes its version. A
     * whole entry stays, and the put-if-absent that follows loses to it as to any other writer.
     *
     * <p>Between the check and the rename another writer could publish a whole entry of that name
     * only if two writers committed to one table at once; a table has one writing query, held by
     * its checkpoint's lock ({@code TableOwnership}), so the torn file's name is not raced for.
     */
    static void setAsideIfTorn(Path target) throws IOException {
        if (!Storage.isLocal(target) || !DeltaLogDamage.isCommit(target.getName())) {
            return;
        }
        long length;
        try {
            length = target.getFileSystem().getFileStatus(target).getLen();
        } catch (java.io.FileNotFoundException e) {
            return;
        }
        if (tornBecause(target, length) == null) {
            return;
        }
        String torn = ".torn-" + UUID.randomUUID();
        Path aside = new Path(target.getParent(), "." + target.getName() + torn);
        if (!target.getFileSystem().rename(target, aside)) {
            throw new IOException(
                    "cannot set the torn Delta log entry "
                            + Storage.shown(target)
                            + " aside (to "
                            + aside.getName()
                            + "): move it away by hand and run again");
        }
        LOG.info("Delta log entry {} was torn: set aside as {}", target, aside.getName());
        // Its checksum, if one was written, describes the torn version: the commit that takes the
        // version writes its own.
        Path checksum = new Path(target.getParent(), target.getName().replace(".json", ".crc"));
        if (Storage.exists(checksum)) {
            target.getFileSystem()
                    .rename(
                            checksum,
                            new Path(target.getParent(), "." + checksum.getName() + torn));
        }
    }

    /**
     * Why the commit {@code file} of {@code length} bytes is torn, or null if it is whole: empty,
     * not ending with a newline (every Delta writer ends each action's line with one), or with a
     * last line that is no JSON object.
     */
    static String tornBecause(Path file, long length) throws IOException {
        if (length == 0) {
            return "0 bytes";
        }
        int tail = (int) Math.min(length, TAIL_BYTES);
        byte[] bytes = new byte[tail];
        try (FSDataInputStream in = file.getFileSystem().open(file)) {
            in.seek(length - tail);
            int read = 0;
            while (read < tail) {
                int n = in.read(bytes, read, tail - read);
                if (n < 0) {
                    return length + " bytes listed, " + read + " read";
                }
                read += n;
            }
        }
        if (bytes[tail - 1] != '\n') {
            return length + " bytes, its last line cut short (no newline at its end)";
        }
        int end = tail - 1;
        int start = end;
        while (start > 0 && bytes[start - 1] != '\n') {
            start--;
        }
        if (start == 0 && tail < length) {
            return null; // a last line longer than the tail read: it ends as a whole line does
        }
        String last = new String(bytes, start, end - start, StandardCharsets.UTF_8).trim();
        if (last.isEmpty()) {
            return null;
        }
        try {
            JsonNode node = JSON.readTree(last);
            return node != null && node.isObject()
                    ? null
                    : length + " bytes, its last line is not a JSON object";
        } catch (JsonProcessingException e) {
            return length + " bytes, its last line is not JSON";
        }
    }
}
