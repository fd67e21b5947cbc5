package org.flinkss.runtime.source.delta;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.RowType;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.source.ReadLimit;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DataFiles;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A new stream (no position) over a long table starts from Kernel's latest snapshot: the checkpoint
 * named by {@code _last_checkpoint} and the few log entries after it, not a replay of the log from
 * version 0. Kernel 4.0's search for a checkpoint at or before a given version (its time travel)
 * stops at the first {@code .crc} file it lists, so it never finds one in a table with checksum
 * files and replays every version.
 */
class DeltaStartCheckpointTest {

    private static final RowType ROW = RowType.of(new BigIntType());

    @TempDir java.nio.file.Path dir;

    @Test
    void aNewStreamStartsFromTheLastCheckpointNotFromVersionZero() throws Exception {
        java.nio.file.Path folder = dir.resolve("t");
        DeltaTable t = DeltaTable.forPath(folder.toUri().toString());
        t.create(ROW, Map.of());
        DataFile first =
                DataFiles.write(new Path(t.path()), ROW, List.<RowData>of(GenericRowData.of(1L)));
        t.append("q", 0, List.of(first));
        for (int b = 1; b < 200; b++) {
            t.append("q", b, List.<DataFile>of());
        }
        DataFile last =
                DataFiles.write(new Path(t.path()), ROW, List.<RowData>of(GenericRowData.of(2L)));
        t.append("q", 200, List.of(last));
        assertThat(t.version()).isEqualTo(201);

        // Every 10 commits a checkpoint, and _last_checkpoint names the newest.
        java.nio.file.Path log = folder.resolve("_delta_log");
        assertThat(log.resolve(String.format("%020d.checkpoint.parquet", 200))).exists();
        assertThat(
                        new ObjectMapper()
                                .readTree(log.resolve("_last_checkpoint").toFile())
                                .get("version")
                                .asLong())
                .isEqualTo(200);

        // Log entries older than the checkpoint are not needed to find the table's state (Delta's
        // log cleanup deletes them): without them, a start that replayed the log would fail.
        for (long v = 0; v < 200; v++) {
            Files.delete(log.resolve(String.format("%020d.json", v)));
        }

        List<String> kernelSays = new CopyOnWriteArrayList<>();
        List<DeltaSplit> batch;
        try (AutoCloseable listening = listen(KERNEL_SNAPSHOTS, kernelSays)) {
            DeltaPlanner planner = new DeltaPlanner("t", folder.toUri().toString());
            planner.restore(null);
            planner.refreshTarget();
            batch = planner.nextBatch(0, ReadLimit.none());
        }

        // The start found the checkpoint: it did not list the log from version 0.
        assertThat(kernelSays).isNotEmpty().noneMatch(m -> m.contains("Listing from version 0"));
        assertThat(kernelSays).anyMatch(m -> m.contains("complete checkpoint at version 200"));

        assertThat(batch)
                .extracting(s -> new Path(s.path()).getName())
                .containsExactlyInAnyOrder(
                        new Path(first.path()).getName(), new Path(last.path()).getName());
        assertThat(batch).allMatch(s -> s.version() == 201 && s.snapshot());
    }

    @Test
    void aCommitWritesItsCheckpointWithoutListingTheLogFromVersionZero() throws Exception {
        java.nio.file.Path folder = dir.resolve("t");
        DeltaTable t = DeltaTable.forPath(folder.toUri().toString());
        t.create(ROW, Map.of());
        for (int b = 0; b < 19; b++) {
            t.append("q", b, List.<DataFile>of());
        }
        assertThat(t.version()).isEqualTo(19);

        List<String> kernelSays = new CopyOnWriteArrayList<>();
        try (AutoCloseable listening = listen(KERNEL_SNAPSHOTS, kernelSays)) {
            t.append("q", 19, List.<DataFile>of());
        }

        java.nio.file.Path log = folder.resolve("_delta_log");
        assertThat(log.resolve(String.format("%020d.checkpoint.parquet", 20))).exists();
        assertThat(
                        new ObjectMapper()
                                .readTree(log.resolve("_last_checkpoint").toFile())
                                .get("version")
                                .asLong())
                .isEqualTo(20);
        assertThat(kernelSays).isNotEmpty().noneMatch(m -> m.contains("Listing from version 0"));
    }

    /** Kernel's logger of how it finds a snapshot's log segment. */
    private static final String KERNEL_SNAPSHOTS = "io.delta.kernel.internal.snapshot";

    /** Collects what {@code logger} logs at INFO and above until closed. */
    private static AutoCloseable listen(String logger, List<String> messages) {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        Configuration config = context.getConfiguration();
        AbstractAppender appender =
                new AbstractAppender("kernel-snapshots", null, null, true, Property.EMPTY_ARRAY) {
                    @Override
                    public void append(LogEvent event) {
                        messages.add(event.getMessage().getFormattedMessage());
                    }
                };
        appender.start();
        LoggerConfig loggerConfig = new LoggerConfig(logger, Level.INFO, false);
        loggerConfig.addAppender(appender, Level.INFO, null);
        config.addLogger(logger, loggerConfig);
        context.updateLoggers();
        return () -> {
            config.removeLogger(logger);
            context.updateLoggers();
            appender.stop();
        };
    }
}
