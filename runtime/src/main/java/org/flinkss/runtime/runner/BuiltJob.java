package org.flinkss.runtime.runner;

import org.flinkss.runtime.checkpoint.QueryIdentity;

import java.util.List;
import java.util.Map;

/**
 * What a {@link QueryRun} needs to know of the job graph a {@link JobBuilder} built: the query's
 * identity for its checkpoint, its sources and sinks for progress, and what to do before and after
 * the run.
 */
public interface BuiltJob {

    /** What makes the query the same query for its checkpoint. */
    QueryIdentity identity();

    /** The names of the job's micro-batch sources: the run waits for each to catch up. */
    List<String> sourceNames();

    /** Spark's description of each source by its name, for progress. */
    Map<String, String> sourceDescriptions();

    /** Spark's description of each sink by its name, for progress. */
    Map<String, String> sinkDescriptions();

    /** The tables where the job's sources record the files they skipped. */
    List<String> skippedFilesTables();

    /**
     * What {@link #prepare} would refuse, reading only ({@code run --dry-run}): each table that
     * another query or checkpoint writes, in one line each. None by default.
     */
    default List<String> tableRefusals() {
        return List.of();
    }

    /**
     * What {@code --until-final T} says of each Delta table the query reads, reading only ({@code
     * run --dry-run}): the tables that are not final up to {@code T}, each in the line the run
     * would be refused with. None by default.
     */
    default List<String> untilFinalRefusals() {
        return List.of();
    }

    /** The tables that are final up to {@code --until-final T}, a line each ({@code --dry-run}). */
    default List<String> untilFinalNotes() {
        return List.of();
    }

    /**
     * The commits the run would make before the job is submitted, a line each ({@code --dry-run}: a
     * SQL file's {@code ALTER TABLE ... ADD|DROP CONSTRAINT}). None by default.
     */
    default List<String> commitsBeforeRun() {
        return List.of();
    }

    /** Before the job is submitted, once the checkpoint accepted the query: creates its tables. */
    void prepare();

    /**
     * After the run's final savepoint, once only it is kept: removes what no commit references (a
     * killed run's part files).
     */
    void afterFinalSavepoint();
}
