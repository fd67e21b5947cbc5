package org.flinkss.runtime.query;

/**
 * A streaming query: sources, transformations and sinks, built on a {@link QueryContext}. The
 * definition knows nothing of the trigger or the checkpoint: {@link QueryRunner} attaches them.
 */
public interface Query {

    /** The query's name: its checkpoint is {@code <base>/_cp/<name>}. */
    String name();

    void build(QueryContext context);
}
