/**
 * Reading a query's state from its checkpoint, without running it ({@code state show|export|summary
 * <query>}): Spark's {@code statestore} data source, on Flink's State Processor API. {@link
 * org.flinkss.runtime.state.QueryState} is the facade: which restore point (the one the next run
 * would restore, or a batch's), the operators in its metadata, and a keyed operator's state as rows
 * through a {@link org.flinkss.runtime.state.KeyedStateView}. Read-only: nothing is written and no
 * lock is taken, so a running query is fine (only completed restore points are read).
 */
package org.flinkss.runtime.state;
