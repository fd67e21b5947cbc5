package org.flinkss.runtime.query;

/**
 * A streaming query: sources, transformations and sinks, built on a {@link QueryContext}. The
 * definition knows nothing of the trigger or the checkpoint: {@link QueryRunner} attaches them.
 *
 * <p>The course's queries implement it, and so does a user's own query in a jar of theirs, run with
 * {@code run --jar JAR --class CLASS} ({@link QueryJar}: a public class with a public constructor
 * without arguments). Such a query uses the runtime's public API only (docs/java-api.md).
 */
public interface Query {

    /** The query's name: its checkpoint is {@code <base>/_cp/<name>}. */
    String name();

    /**
     * Builds the query's graph for one run: its sources and sinks from {@code context}, any Flink
     * DataStream operators between them (stateful ones with a stable uid, declared with {@link
     * QueryContext#stateful}). Called once per run, before the job is submitted.
     */
    void build(QueryContext context);
}
