/**
 * Operations on a base beside its runs, for the command line and the course: a query's checkpoint
 * as a command sees it ({@link org.flinkss.runtime.ops.QueryCheckpoint}: its identity, its
 * progress, its watermark, its lock), starting a query over ({@link
 * org.flinkss.runtime.ops.QueryReset}), and making Flink's file systems ready ({@link
 * org.flinkss.runtime.ops.StorageSetup}). Running queries is {@link
 * org.flinkss.runtime.query.QueryRunner}'s.
 *
 * <p>This is the engine's public face for operations: callers never open a checkpoint's files
 * ({@code org.flinkss.runtime.checkpoint}) or the runner's machinery themselves.
 */
package org.flinkss.runtime.ops;
