package org.flinkss.course.demo;

import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.table.Warehouse;

import java.io.PrintStream;

/**
 * How the demo shows what it does, given by the program that runs it (the command line): where it
 * prints, and how a run and a table are shown there, so that the demo's lines look like the command
 * line's own.
 */
public interface DemoConsole {

    /** Where the demo prints its cells, and where the runs it starts print. */
    PrintStream out();

    /** The line that tells how a run of query {@code query} went. */
    String runSummary(String query, QueryRunner.Result result);

    /** The first {@code limit} rows of a table of {@code warehouse}, as a grid. */
    String showTable(Warehouse warehouse, String table, int limit);
}
