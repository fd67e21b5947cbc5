package org.flinkss.course.tables;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.RowData;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.EventJson;
import org.flinkss.course.event.EventLinesFormat;
import org.flinkss.course.event.ParsedEvent;
import org.flinkss.runtime.source.SplitRecordReader;
import org.flinkss.runtime.source.files.FileSplit;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DataFiles;

import java.io.BufferedWriter;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The per-record cost of bronze's two halves, on one thread, in CPU time (not a test): parse the
 * course's lines from landing files ({@link EventLinesFormat}, plain and with a rescued data
 * column), and turn events into rows written to Parquet data files and described from their footers
 * ({@link EventTables#toRow}, {@link DataFiles#writeFile}, what {@code DataFileWriter} does). The
 * thread's CPU time does not count time the shared machine gives to others, so its numbers compare
 * across runs where wall time does not; wall time is printed next to it.
 *
 * <p>Run: {@code java -cp <course test classpath> org.flinkss.course.tables.BronzePathBench
 * <folder> [events=1000000] [files=200] [repeats=5]}; the folder is made and filled with landing
 * files the first time (the course's events, {@link EventGenerator}), and data files are written
 * under it and deleted.
 */
public final class BronzePathBench {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /**
     * Rows per data file: a bronze subtask writes one file per checkpoint (every second), about
     * 100,000 rows in a 1M-event run, not one per landing file.
     */
    private static final int ROWS_PER_DATA_FILE = 100_000;

    public static void main(String[] args) throws Exception {
        java.nio.file.Path root = Paths.get(args[0]);
        int events = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
        int files = args.length > 2 ? Integer.parseInt(args[2]) : 200;
        int repeats = args.length > 3 ? Integer.parseInt(args[3]) : 5;
        int perFile = events / files;
        List<java.nio.file.Path> landing = land(root.resolve("events"), files, perFile);
        java.nio.file.Path out = root.resolve("parquet");
        Files.createDirectories(out);

        double[][] results = new double[6][repeats];
        for (int r = 0; r < repeats; r++) {
            double[] plain = parse(landing, new EventLinesFormat(false));
            double[] rescued = parse(landing, new EventLinesFormat(true));
            double[] write = write(out, events / ROWS_PER_DATA_FILE, ROWS_PER_DATA_FILE);
            double[] row = {plain[0], plain[1], rescued[0], rescued[1], write[0], write[1]};
            for (int i = 0; i < row.length; i++) {
                results[i][r] = row[i];
            }
            System.out.printf(
                    Locale.ROOT,
                    "run %d: parse %.0f ns/record CPU (%.0f wall), parse rescuing %.0f (%.0f),"
                            + " write %.0f (%.0f)%n",
                    r + 1,
                    row[0],
                    row[1],
                    row[2],
                    row[3],
                    row[4],
                    row[5]);
        }
        String[] names = {
            "parse CPU", "parse wall", "rescuing CPU", "rescuing wall", "write CPU", "write wall"
        };
        for (int i = 0; i < names.length; i++) {
            double[] sorted = results[i].clone();
            Arrays.sort(sorted);
            System.out.printf(
                    Locale.ROOT,
                    "%-14s ns/record: min %.0f median %.0f max %.0f (%d records x %d runs)%n",
                    names[i],
                    sorted[0],
                    sorted[sorted.length / 2],
                    sorted[sorted.length - 1],
                    (long) perFile * files,
                    repeats);
        }
    }

    /** The landing files, written once: {@code files} files of {@code perFile} course events. */
    private static List<java.nio.file.Path> land(java.nio.file.Path dir, int files, int perFile)
            throws IOException {
        Files.createDirectories(dir);
        List<java.nio.file.Path> landing = new ArrayList<>(files);
        for (int f = 0; f < files; f++) {
            java.nio.file.Path file = dir.resolve(String.format("part-%05d.json", f));
            if (!Files.exists(file)) {
                try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
                    for (Event e : EventGenerator.events((long) f * perFile, perFile)) {
                        w.write(EventJson.toJson(e));
                        w.write('\n');
                    }
                }
            }
            landing.add(file);
        }
        return landing;
    }

    /** Reads every landing file; CPU and wall nanoseconds per record. */
    private static double[] parse(List<java.nio.file.Path> landing, EventLinesFormat format)
            throws IOException {
        long records = 0;
        long check = 0;
        long cpu = THREADS.getCurrentThreadCpuTime();
        long wall = System.nanoTime();
        for (java.nio.file.Path file : landing) {
            FileSplit split = new FileSplit(file.toString(), file.getFileName().toString(), 0, 0);
            try (SplitRecordReader<ParsedEvent> reader = format.open(split)) {
                ParsedEvent record;
                while ((record = reader.next()) != null) {
                    if (record.isBad()) {
                        throw new IllegalStateException("bad course line: " + record);
                    }
                    check += record.event.eventId;
                    records++;
                }
            }
        }
        cpu = THREADS.getCurrentThreadCpuTime() - cpu;
        wall = System.nanoTime() - wall;
        if (check == 42) {
            System.out.println(); // keeps the records alive
        }
        return new double[] {(double) cpu / records, (double) wall / records};
    }

    /** Writes {@code files} data files of {@code perFile} rows; CPU and wall ns per record. */
    private static double[] write(java.nio.file.Path out, int files, int perFile)
            throws IOException {
        long cpu = 0;
        long wall = 0;
        long records = 0;
        for (int f = 0; f < files; f++) {
            // The events are made outside the clock: the parser's half is measured above.
            List<Event> events = EventGenerator.events((long) f * perFile, perFile);
            long c = THREADS.getCurrentThreadCpuTime();
            long w = System.nanoTime();
            List<RowData> rows = new ArrayList<>(events.size());
            for (Event e : events) {
                rows.add(EventTables.toRow(e));
            }
            DataFile file =
                    DataFiles.writeFile(
                            new Path(out.resolve("part-" + f + DataFiles.SUFFIX).toUri()),
                            EventTables.EVENT_ROW,
                            rows);
            cpu += THREADS.getCurrentThreadCpuTime() - c;
            wall += System.nanoTime() - w;
            records += file.numRecords();
        }
        try (Stream<java.nio.file.Path> written = Files.list(out)) {
            for (java.nio.file.Path p : (Iterable<java.nio.file.Path>) written::iterator) {
                Files.delete(p);
            }
        }
        return new double[] {(double) cpu / records, (double) wall / records};
    }
}
