package org.flinkss.course.queries;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.EventJson;
import org.flinkss.course.event.LocalEventFiles;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.LongStream;
import java.util.zip.GZIPOutputStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What bronze reads of a landing folder, as Spark 4.0.4 reads it with the course's options ({@code
 * recursiveFileLookup}, {@code pathGlobFilter "*.json"}): links followed, a UTF-8 byte order mark
 * skipped, a line holding an array of objects read as one row per object.
 */
class LandingFilesITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path dir;

    private static List<Object> eventIds(Warehouse warehouse) {
        return warehouse.sortedValues(BronzeQuery.TABLE).stream().map(row -> row.get(0)).toList();
    }

    @Test
    void aLandingFolderThatIsALinkIsReadWithItsLinkedFilesAndFoldersEachFileOnce()
            throws Exception {
        // Step 1: 200 files of 5 events in a folder elsewhere; <base>/events is a link to it.
        Path real = dir.resolve("landing");
        for (int batch = 1; batch <= 200; batch++) {
            LocalEventFiles.writeBatch(real, batch, EventGenerator.events((batch - 1) * 5L, 5));
        }
        RunOptions options = BronzeITCase.options(dir.resolve("base"), 2);
        Files.createDirectories(Storage.localFile(options.base(), "a test file").toPath());
        Files.createSymbolicLink(Storage.localFile(options.events(), "a test file").toPath(), real);

        // Step 2: inside it, a linked batch folder, and a link back to the landing folder itself.
        Path more =
                LocalEventFiles.writeBatch(dir.resolve("more"), 1, EventGenerator.events(1000, 5));
        Files.createSymbolicLink(real.resolve("batch_201"), more);
        Files.createSymbolicLink(real.resolve("batch_1").resolve("loop"), real);

        QueryRunner.Result run = QueryRunner.run(new BronzeQuery(options.events()), options);

        // Step 3: every event once: 1005 rows, not 0 (the link) nor more (the loop).
        assertThat(run.numInputRows()).isEqualTo(1005);
        assertThat(eventIds(new Warehouse(options.warehouse())))
                .containsExactlyElementsOf(
                        LongStream.range(0, 1005).boxed().map(Object.class::cast).toList());
    }

    @Test
    void aByteOrderMarkAndArraysOfObjectsAreReadAsSparkReadsThemAndJsonGzIsLeftOut()
            throws Exception {
        RunOptions options = BronzeITCase.options(dir, 2);
        Path batch =
                Files.createDirectories(
                        Storage.localFile(options.events(), "a test file")
                                .toPath()
                                .resolve("batch_1"));
        String[] json = new String[6];
        for (int id = 0; id < json.length; id++) {
            json[id] = EventJson.toJson(EventGenerator.event(id));
        }
        // Step 1: a file as a Windows tool or an array-writing exporter leaves it, and the same
        // kind of file gzipped: the course's pathGlobFilter '*.json' leaves the .json.gz out, in
        // Spark 4.0.4 too.
        Files.writeString(
                batch.resolve("part-00000.json"),
                "\uFEFF" + json[0] + "\n[" + json[1] + "," + json[2] + "]\n[]\n" + json[3] + "\n",
                StandardCharsets.UTF_8);
        try (OutputStream out =
                new GZIPOutputStream(Files.newOutputStream(batch.resolve("part-00001.json.gz")))) {
            out.write((json[4] + "\n" + json[5] + "\n").getBytes(StandardCharsets.UTF_8));
        }

        QueryRunner.Result run = QueryRunner.run(new BronzeQuery(options.events()), options);

        // Step 2: four rows, none in the quarantine.
        Warehouse warehouse = new Warehouse(options.warehouse());
        assertThat(eventIds(warehouse)).containsExactly(0L, 1L, 2L, 3L);
        assertThat(warehouse.count(BronzeQuery.QUARANTINE)).isZero();
        assertThat(run.numInputRows()).isEqualTo(4);
    }
}
