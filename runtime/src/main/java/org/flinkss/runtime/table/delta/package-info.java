/**
 * Warehouse tables as Delta Lake tables, written and read with Delta Kernel 4.0.
 *
 * <p>The public face:
 *
 * <ul>
 *   <li>{@link org.flinkss.runtime.table.delta.DeltaTable}: create a table from a Flink {@code
 *       RowType}, commit a micro-batch's data files ({@code commit(appId, batchId, files, mode)}:
 *       one Delta commit with a {@code txn} action, skipped when the table already holds the
 *       batch), read snapshots (current, by version, by time), the files added by a range of
 *       versions (a stream's batch, {@link org.flinkss.runtime.table.delta.DeltaOffset}), history,
 *       vacuum.
 *   <li>{@link org.flinkss.runtime.table.delta.DataFiles}: write a data file with flink-parquet,
 *       describe one (size, time, footer statistics) as a {@link
 *       org.flinkss.runtime.table.delta.DataFile}, read one.
 *   <li>{@link org.flinkss.runtime.table.delta.LegacyTables}: convert a folder of the earlier
 *       format in place, or the message that refuses it.
 *   <li>{@link org.flinkss.runtime.table.delta.DeltaStorage} and {@link
 *       org.flinkss.runtime.table.delta.PutIfAbsent}: where tables live (Flink's file systems by
 *       default) and how a log entry is written only if absent on each kind of storage.
 * </ul>
 *
 * <p>Behind {@code DeltaTable}, package-private classes shaped like Kernel's seams do the work:
 * snapshots ({@code SnapshotReader}), log entries of a range of versions ({@code VersionReader}),
 * transactions ({@code TransactionWriter}), upkeep ({@code TableMaintenance}). What Kernel 4.0.0
 * offers only in {@code io.delta.kernel.internal}, and the reading of its error texts, is in one
 * adapter, {@code KernelInternals}: nothing else may use Kernel's internals.
 *
 * <p>For a two-phase-commit sink: data files are written (staged) anywhere in the table's folder
 * while a batch runs; they are invisible to every Delta reader until the one commit that ends the
 * batch names them. That commit must carry all of the batch's files from all subtasks (one
 * committer for the table): a second commit for the same batch id is skipped, by design.
 */
package org.flinkss.runtime.table.delta;
