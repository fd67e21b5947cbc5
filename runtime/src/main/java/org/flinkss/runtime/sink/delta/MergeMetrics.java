package org.flinkss.runtime.sink.delta;

import org.flinkss.runtime.table.delta.OperationInfo;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What one MERGE did, counted as Delta's {@code MergeIntoCommand} counts it, and the {@code
 * commitInfo} it makes: operation {@code MERGE}, Delta's parameters ({@code predicate}, {@code
 * matchedPredicates}, {@code notMatchedPredicates}) and metrics. Target rows are the table's rows:
 * updated (matched, replaced by the source's row), deleted (matched by a delete), copied (in a
 * rewritten file but not matched); inserted rows are the source's unmatched ones.
 */
final class MergeMetrics {

    long sourceRows;
    long inserted;
    long updated;
    long deleted;
    long copied;
    long filesAdded;
    long filesRemoved;
    long bytesAdded;
    long bytesRemoved;
    long scanMs;
    long rewriteMs;

    OperationInfo info(List<String> keyColumns, long executionMs) {
        String condition =
                keyColumns.stream()
                        .map(c -> "(t." + c + " = s." + c + ")")
                        .collect(Collectors.joining(" AND "));
        Map<String, String> parameters = new LinkedHashMap<>();
        parameters.put("predicate", "[\"" + condition + "\"]");
        parameters.put("matchedPredicates", "[{\"actionType\":\"update\"}]");
        parameters.put("notMatchedPredicates", "[{\"actionType\":\"insert\"}]");
        parameters.put("notMatchedBySourcePredicates", "[]");
        Map<String, String> metrics = new LinkedHashMap<>();
        put(metrics, "numSourceRows", sourceRows);
        put(metrics, "numTargetRowsInserted", inserted);
        put(metrics, "numTargetRowsUpdated", updated);
        put(metrics, "numTargetRowsMatchedUpdated", updated);
        put(metrics, "numTargetRowsNotMatchedBySourceUpdated", 0);
        put(metrics, "numTargetRowsDeleted", deleted);
        put(metrics, "numTargetRowsMatchedDeleted", deleted);
        put(metrics, "numTargetRowsNotMatchedBySourceDeleted", 0);
        put(metrics, "numTargetRowsCopied", copied);
        put(metrics, "numOutputRows", inserted + updated + copied);
        put(metrics, "numTargetFilesAdded", filesAdded);
        put(metrics, "numTargetFilesRemoved", filesRemoved);
        put(metrics, "numTargetBytesAdded", bytesAdded);
        put(metrics, "numTargetBytesRemoved", bytesRemoved);
        put(metrics, "numTargetChangeFilesAdded", 0);
        put(metrics, "numTargetDeletionVectorsAdded", 0);
        put(metrics, "numTargetDeletionVectorsRemoved", 0);
        put(metrics, "numTargetDeletionVectorsUpdated", 0);
        put(metrics, "executionTimeMs", executionMs);
        put(metrics, "scanTimeMs", scanMs);
        put(metrics, "rewriteTimeMs", rewriteMs);
        return new OperationInfo("MERGE", parameters, metrics);
    }

    private static void put(Map<String, String> metrics, String name, long value) {
        metrics.put(name, Long.toString(value));
    }
}
