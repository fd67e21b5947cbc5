package org.flinkss.jobs.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

import org.flinkss.jobs.cli.options.DataOptions;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.table.delta.DeltaLogDamage;
import org.flinkss.runtime.table.delta.DeltaLogRepair;

import java.util.concurrent.Callable;

/**
 * {@code table repair <name>}: a table whose Delta log is damaged (a truncated commit or
 * checkpoint, a missing checkpoint, a {@code _last_checkpoint} or {@code .crc} that is not JSON)
 * falls back to its last readable version; the damaged log files are moved aside, never deleted.
 */
@Command(
        name = "repair",
        mixinStandardHelpOptions = true,
        description =
                "Fall back to the last readable version of a table whose Delta log is damaged:"
                        + " the damaged log files (and the later ones) are moved into"
                        + " <table>/_damaged_log/<time>/, nothing is deleted. Run it while no"
                        + " query writes the table.")
final class TableRepairCommand implements Callable<Integer> {

    @Mixin DataOptions data;

    @Parameters(paramLabel = "TABLE")
    String table;

    @Override
    public Integer call() {
        data.refuseJdbcUrl("table repair"); // a Delta log's repair
        // Not warehouse.exists(table): it reads the log, and a damaged one is refused there.
        Warehouse warehouse = data.openWarehouse();
        DeltaLogRepair.Repaired repaired = DeltaLogRepair.repair(warehouse.folder(table));
        if (repaired.damage().isEmpty()) {
            System.out.println("table " + table + ": its Delta log is readable, nothing to repair");
            return 0;
        }
        DeltaLogDamage damage = repaired.damage().get();
        System.out.println(
                "table "
                        + table
                        + ": moved "
                        + damage.files().size()
                        + " damaged log file(s) into "
                        + repaired.movedTo().orElseThrow()
                        + "; it reads at version "
                        + warehouse.delta(table).version()
                        + ", the last readable one"
                        + (damage.dropsVersions()
                                ? " (the rows of the later versions are no longer in it: 'reset'"
                                        + " the query that writes it to rebuild it whole)"
                                : ""));
        return 0;
    }
}
