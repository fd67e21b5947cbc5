package org.flinkss.jobs.bench;

import org.apache.flink.core.fs.Path;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.sink.delta.MergeCommit;
import org.flinkss.runtime.table.delta.CommitResult;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DataFiles;
import org.flinkss.runtime.table.delta.DeltaTable;
import org.flinkss.runtime.table.delta.HistoryEntry;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

/**
 * What one MERGE batch of {@code run latest} ({@link MergeCommit}, copy-on-write) costs as the
 * table grows (issue 34): for each table size, a Delta table {@code events_latest} of that many of
 * the course's events is written directly in a few big files (one commit: no 20,000 batches), then
 * batches of upserts are MERGEd into it, timed one by one, in three shapes:
 *
 * <ul>
 *   <li>{@code insert}: new ids only (what {@code latest} mostly sees): no file holds a key, the
 *       files' statistics say so without reading any;
 *   <li>{@code update-recent}: ids of the newest file (a replayed or re-landed recent batch): that
 *       file is rewritten;
 *   <li>{@code update-spread}: ids drawn over the whole table: every file that holds one is
 *       rewritten, which with a few big files is the whole table.
 * </ul>
 *
 * Prints one Markdown row per table size and shape: files rewritten and rows written per batch, and
 * the batch's time (median, min, max), from the MERGE's plan to its commit. Run by {@code
 * scripts/bench-merge}, which adds the machine's load and the commit.
 */
public final class MergeBenchmark {

    private static final RowType ROW = EventTables.EVENT_ROW;
    private static final String LOAD = UUID.randomUUID().toString();
    private static final String QUERY = UUID.randomUUID().toString();

    private final File dir;
    private final long rowsPerFile;
    private final int batchRows;
    private final int batches;
    private final PrintStream out;
    private final Random random = new Random(34);

    MergeBenchmark(File dir, long rowsPerFile, int batchRows, int batches, PrintStream out) {
        this.out = out;
        this.dir = dir;
        this.rowsPerFile = rowsPerFile;
        this.batchRows = batchRows;
        this.batches = batches;
    }

    public static void main(String[] args) throws IOException {
        run(args, System.out);
    }

    /**
     * Runs the benchmark of {@code args} (see {@code scripts/bench-merge --help}) into {@code out}.
     */
    static void run(String[] args, PrintStream out) throws IOException {
        File dir = new File("data/bench-merge");
        List<Long> sizes = List.of(1_000_000L, 10_000_000L);
        long rowsPerFile = 1_000_000L;
        int batchRows = 500;
        int batches = 3;
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--dir" -> dir = new File(need(args[i], value));
                case "--rows" ->
                        sizes =
                                Arrays.stream(need(args[i], value).split(","))
                                        .map(s -> Long.parseLong(s.replace("_", "")))
                                        .toList();
                case "--rows-per-file" ->
                        rowsPerFile = Long.parseLong(need(args[i], value).replace("_", ""));
                case "--batch-rows" -> batchRows = Integer.parseInt(need(args[i], value));
                case "--batches" -> batches = Integer.parseInt(need(args[i], value));
                default ->
                        throw new IllegalArgumentException(
                                "unknown argument '"
                                        + args[i]
                                        + "': use --dir DIR --rows N,N --rows-per-file N"
                                        + " --batch-rows N --batches N");
            }
            i++;
        }
        MergeBenchmark bench = new MergeBenchmark(dir, rowsPerFile, batchRows, batches, out);
        out.println(
                "| table rows | files | batch | files rewritten | rows written | batch ms median"
                        + " (min-max) | load s |");
        out.println("| --- | --- | --- | --- | --- | --- | --- |");
        for (long size : sizes) {
            bench.measure(size);
        }
    }

    private static String need(String option, String value) {
        if (value == null) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return value;
    }

    private void measure(long size) throws IOException {
        File folder = new File(dir, "events_latest_" + size);
        if (folder.exists()) {
            throw new IllegalStateException(
                    folder + " exists: give a new --dir (the benchmark deletes nothing)");
        }
        DeltaTable table = DeltaTable.forPath(folder.toURI().toString());
        table.create(ROW, Map.of());
        long started = System.nanoTime();
        List<DataFile> files = new ArrayList<>();
        for (long first = 0; first < size; first += rowsPerFile) {
            files.add(writeFile(table, first, Math.min(rowsPerFile, size - first)));
        }
        table.append(LOAD, 0, files);
        double loadSeconds = (System.nanoTime() - started) / 1e9;
        long batchId = 0;
        long nextNewId = size;
        long newestFileStart = (size - 1) / rowsPerFile * rowsPerFile;
        for (String shape : List.of("insert", "update-recent", "update-spread")) {
            List<long[]> measured = new ArrayList<>();
            for (int b = 0; b < batches; b++) {
                List<Long> ids = new ArrayList<>();
                for (int r = 0; r < batchRows; r++) {
                    ids.add(
                            switch (shape) {
                                case "insert" -> nextNewId++;
                                case "update-recent" ->
                                        newestFileStart
                                                + (long)
                                                        (random.nextDouble()
                                                                * (size - newestFileStart));
                                default -> (long) (random.nextDouble() * size);
                            });
                }
                long t = System.nanoTime();
                CommitResult result =
                        new MergeCommit(ROW, List.of("event_id"))
                                .commit(table, QUERY, batchId++, List.of(changeSet(ids, b)));
                long ms = (System.nanoTime() - t) / 1_000_000;
                if (!result.committed()) {
                    throw new IllegalStateException("batch " + (batchId - 1) + " not committed");
                }
                HistoryEntry entry = table.history(1).get(0);
                measured.add(new long[] {ms, entry.filesRemoved(), entry.rowsAdded()});
            }
            measured.sort((x, y) -> Long.compare(x[0], y[0]));
            long[] median = measured.get(measured.size() / 2);
            out.printf(
                    Locale.ROOT,
                    "| %,d | %d | %s, %d rows | %d | %,d | %,d (%,d-%,d) | %.1f |%n",
                    size,
                    files.size(),
                    shape,
                    batchRows,
                    median[1],
                    median[2],
                    median[0],
                    measured.get(0)[0],
                    measured.get(measured.size() - 1)[0],
                    loadSeconds);
        }
    }

    /** The course's events {@code first..first+n-1}, in id order, as one data file. */
    private static DataFile writeFile(DeltaTable table, long first, long n) throws IOException {
        Path file = new Path(table.path(), "part-load-" + UUID.randomUUID() + DataFiles.SUFFIX);
        try (DataFiles.Writer writer = DataFiles.create(file, ROW)) {
            for (long at = first; at < first + n; at += 100_000) {
                for (Event e : EventGenerator.events(at, (int) Math.min(100_000, first + n - at))) {
                    writer.write(EventTables.toRow(e));
                }
            }
            return writer.finish();
        }
    }

    /** The upsert rows of a batch as the table's writer hands them to the committer. */
    private static byte[] changeSet(List<Long> ids, int round) throws IOException {
        RowDataSerializer serializer = new RowDataSerializer(ROW);
        DataOutputSerializer out = new DataOutputSerializer(ids.size() * 64);
        out.writeInt(ids.size());
        for (long id : ids) {
            Event e = EventGenerator.event(id);
            Event changed =
                    new Event(
                            e.eventId,
                            e.userId,
                            "updated-" + round,
                            Instant.ofEpochMilli(e.eventTs.toEpochMilli()),
                            e.amount);
            RowData row = EventTables.toRow(changed);
            serializer.serialize(row, out);
        }
        return out.getCopyOfBuffer();
    }
}
