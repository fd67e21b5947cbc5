package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.flinkss.runtime.progress.ProgressListener;

import java.io.PrintStream;
import java.util.List;

/**
 * A skipped file is never a silent drop: one warning line per file a committed batch skipped
 * ({@code --skip-missing-files}), naming where it is recorded.
 */
@Internal
public final class SkippedFilesWarning implements ProgressListener {

    private final String queryName;
    private final List<String> recordTables;
    private final PrintStream out;

    /**
     * @param recordTables the tables where the query records skipped files
     */
    public SkippedFilesWarning(String queryName, List<String> recordTables, PrintStream out) {
        this.queryName = queryName;
        this.recordTables = List.copyOf(recordTables);
        this.out = out;
    }

    @Override
    public void onProgress(ObjectNode progress) {
        for (JsonNode source : progress.path("sources")) {
            for (JsonNode file : source.path("skippedFiles")) {
                out.println(
                        "warning: "
                                + queryName
                                + ": skipped "
                                + file.asText()
                                + ", planned in batch "
                                + progress.path("batchId").asLong()
                                + ": it was gone when read (--skip-missing-files); recorded in the"
                                + " batch's progress"
                                + (recordTables.isEmpty()
                                        ? ""
                                        : " and in " + String.join(", ", recordTables)));
            }
        }
    }
}
