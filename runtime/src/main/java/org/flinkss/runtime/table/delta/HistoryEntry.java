package org.flinkss.runtime.table.delta;

import java.time.Instant;

/**
 * One version of a table, as {@code DESCRIBE HISTORY} shows it.
 *
 * @param appId the query that committed it (its {@code txn} action), or null
 * @param batchId that query's batch id, or -1
 * @param rowsAdded the rows of the files it added (their {@code numRecords})
 * @param completeness what its commit info records of its event time's completeness
 * @param schemaChange what it changed of the schema and constraints ({@code schema: +country
 *     STRING}, {@code constraint +early_id}), empty for none
 */
public record HistoryEntry(
        long version,
        Instant timestamp,
        String operation,
        String appId,
        long batchId,
        long filesAdded,
        long rowsAdded,
        long filesRemoved,
        Completeness completeness,
        String schemaChange) {}
