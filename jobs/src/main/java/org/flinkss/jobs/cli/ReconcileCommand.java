package org.flinkss.jobs.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

import org.flinkss.course.recompute.Reconcile;
import org.flinkss.jobs.cli.options.BaseFolder;
import org.flinkss.jobs.cli.options.DataOptions;

import java.util.concurrent.Callable;

/**
 * {@code reconcile}: the late rows of a windowed table folded back in ({@link Reconcile}): the
 * windows they missed recomputed from the source table and replaced in one idempotent Delta commit,
 * and one line saying what it did.
 */
@Command(
        name = "reconcile",
        mixinStandardHelpOptions = true,
        description =
                "Fold the rows of <table>_late not yet reconciled back into a windowed table: the"
                        + " closed windows they missed recomputed from the source table and"
                        + " replaced in one Delta commit (a MERGE with txn reconcile:<table>_late)."
                        + " Run again, it changes nothing.")
public final class ReconcileCommand implements Callable<Integer> {

    @Mixin DataOptions data;

    @Parameters(paramLabel = "TABLE", description = "events_5min, events_sliding or events_by_type")
    String table;

    @Override
    public Integer call() {
        BaseFolder.refuseFile(data);
        Reconcile.Result result =
                Reconcile.reconcile(
                        data.openWarehouse(), data.existingDatabase(), data.base(), table);
        String late = table + "_late";
        if (result.nothingToDo()) {
            System.out.println(
                    table
                            + ": nothing to reconcile: "
                            + (result.lateRows() == 0
                                    ? "no late row of "
                                            + late
                                            + " is left to fold in (its version "
                                            + result.lateVersion()
                                            + ")"
                                    : result.lateRows()
                                            + " new late row(s) of "
                                            + late
                                            + ", none in a window the query has closed yet"));
            return 0;
        }
        System.out.printf(
                "%s: folded %d late row(s) of %s (up to its version %d) into %d window(s):"
                        + " replaced %d rows with %d recomputed rows, version %d%n",
                table,
                result.lateRows(),
                late,
                result.lateVersion(),
                result.windows(),
                result.removedRows(),
                result.writtenRows(),
                result.commit().version());
        return 0;
    }
}
