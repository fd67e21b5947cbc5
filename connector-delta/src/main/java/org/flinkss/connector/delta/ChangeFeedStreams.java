package org.flinkss.connector.delta;

import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.connector.delta.internal.ChangeFeedBulkFormat;
import org.flinkss.connector.delta.internal.TableFeatures;
import org.flinkss.runtime.source.delta.ChangeFeedFormat;
import org.flinkss.runtime.table.delta.ChangeDataFeed;
import org.flinkss.runtime.table.delta.DeltaSnapshot;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;

/** Builds the {@link DeltaStreamSource} of a table's change data feed, with Spark's refusals. */
final class ChangeFeedStreams {

    private ChangeFeedStreams() {}

    static DeltaStreamSource build(
            String path, DeltaTable table, OptionalLong startingVersion, Duration checkInterval) {
        String source = "Delta change data feed source for '" + path + "'";
        DeltaSnapshot latest = table.snapshot();
        TableFeatures.refuseUnsupported(source, latest.properties());
        if (!ChangeDataFeed.enabledIn(latest.properties())) {
            throw new IllegalArgumentException(
                    source
                            + ": the table has no change data feed ("
                            + ChangeDataFeed.PROPERTY
                            + " is not set); a table gets it when created with it (reset <query>"
                            + " for a table of this project's MERGE or complete-mode queries)");
        }
        RowType tableRows = latest.rowType();
        FileSource<RowData> reader =
                FileSource.forBulkFileFormat(
                                new ChangeFeedBulkFormat(table.path(), tableRows, false),
                                new Path(table.path()))
                        .build();
        RowType feedRows = ChangeFeedFormat.rowType(tableRows);
        if (startingVersion.isEmpty()) {
            long v = latest.version();
            return new DeltaStreamSource(
                    path,
                    v,
                    feedRows,
                    checkInterval,
                    List.of(ChangeFeedBulkFormat.snapshot(table.path(), v)),
                    reader,
                    true,
                    v + 1);
        }
        long v = startingVersion.getAsLong();
        if (v > latest.version()) {
            throw new IllegalArgumentException(
                    source
                            + ": starting version "
                            + v
                            + " is after the table's last version, "
                            + latest.version());
        }
        if (!ChangeDataFeed.enabledIn(table.snapshotAt(v).properties())) {
            throw new IllegalArgumentException(
                    source
                            + ": change data was not recorded for version "
                            + v
                            + " ("
                            + ChangeDataFeed.PROPERTY
                            + " was not on yet); start from the version that turned it on");
        }
        List<FileSourceSplit> none = List.of();
        return new DeltaStreamSource(path, v, feedRows, checkInterval, none, reader, true, v);
    }
}
