package org.flinkss.jobs.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import org.flinkss.course.tables.Customers;
import org.flinkss.jobs.cli.options.BaseFolder;
import org.flinkss.jobs.cli.options.DataOptions;

import java.util.List;
import java.util.concurrent.Callable;

/** Writes the static {@code customers} table of topic 11.09 ({@link Customers}). */
@Command(
        name = Customers.WRITER,
        mixinStandardHelpOptions = true,
        description =
                "Write (or replace) the customers table: customer_id 1..50, countries assigned in"
                        + " turn.")
public final class LandCustomersCommand implements Callable<Integer> {

    @Mixin DataOptions data = DataOptions.landing();

    @Option(
            names = "--countries",
            split = ",",
            defaultValue = "US,DE,FR,IN,BR,JP,GB,CA,AU,NL",
            description =
                    "countries given to customers 1, 2, 3 ... in turn (default: ${DEFAULT-VALUE})")
    List<String> countries;

    @Override
    public Integer call() {
        data.refuseJdbcUrl("land-customers");
        BaseFolder.createForLanding(data);
        Customers.land(data.openWarehouse(), countries);
        System.out.println("customers: " + Customers.COUNT + " rows, countries " + countries);
        return 0;
    }
}
