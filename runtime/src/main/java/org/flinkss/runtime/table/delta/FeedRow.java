package org.flinkss.runtime.table.delta;

import org.apache.flink.table.data.RowData;

import org.flinkss.runtime.table.delta.ChangeDataFeed.ChangeType;

import java.time.Instant;

/**
 * One row of a table's change data feed, as Spark's {@code table_changes} shows it: the table's
 * columns ({@code row}), then {@code _change_type}, {@code _commit_version} and {@code
 * _commit_timestamp}.
 */
public record FeedRow(RowData row, ChangeType changeType, long version, Instant timestamp) {}
