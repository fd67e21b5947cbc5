package org.flinkss.jobs.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import org.flinkss.course.queries.DatabaseWriters;
import org.flinkss.jobs.cli.options.CheckpointedQuery;
import org.flinkss.jobs.cli.options.DataOptions;
import org.flinkss.runtime.ops.QueryReset;

import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code reset}: topic 11.14's "new checkpoint, reprocess" ({@link QueryReset}) of one query, and a
 * line naming the tables it emptied.
 */
@Command(
        name = "reset",
        mixinStandardHelpOptions = true,
        description =
                "Start a query over: delete its checkpoint and empty the tables it writes; the next"
                        + " run reprocesses from the start.")
public final class ResetCommand implements Callable<Integer> {

    @Mixin DataOptions data;
    @Mixin CheckpointedQuery query;

    @Override
    public Integer call() throws Exception {
        // A catalog query that never writes the SQL database has none of its tables there.
        query.catalog()
                .filter(q -> !DatabaseWriters.mayWrite(q))
                .ifPresent(q -> data.refuseJdbcUrl("reset " + q));
        if (data.objectStoreBase()) {
            data.initializeStorage();
        }
        // A name of the catalog, or of a SQL query's checkpoint: never a path.
        String q = query.checkpointName(data.base(), "reset");
        QueryReset.cutShort(data.base(), q)
                .ifPresent(
                        cut ->
                                System.out.println(
                                        q
                                                + ": completing a reset that was cut short ("
                                                + cut
                                                + ")"));
        List<String> emptied =
                QueryReset.reset(
                        data.base(),
                        data.openWarehouse(),
                        data.objectStoreBase() ? data.existingDatabase() : data.database(),
                        q);
        System.out.println(
                q
                        + ": checkpoint deleted"
                        + (emptied.isEmpty()
                                ? ""
                                : ", tables emptied: " + String.join(", ", emptied))
                        + ". The next run reprocesses everything; older versions of the tables stay"
                        + " readable (time travel) until a table vacuum.");
        return 0;
    }
}
