package org.flinkss.jobs;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import org.flinkss.course.queries.EnrichedQuery;
import org.flinkss.runtime.table.TableDef;
import org.flinkss.runtime.table.TableRewriter;
import org.flinkss.runtime.table.Warehouse;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** The static {@code customers} table of topic 11.09: customer_id 1..50 and a country each. */
@Command(
        name = "land-customers",
        mixinStandardHelpOptions = true,
        description =
                "Write (or replace) the customers table: customer_id 1..50, countries assigned in"
                        + " turn.")
public final class Customers implements Callable<Integer> {

    static final RowType ROW =
            TableDef.columns(
                    List.of("customer_id", "country"), new IntType(), VarCharType.STRING_TYPE);

    @Mixin Main.Common common;

    @Option(
            names = "--countries",
            split = ",",
            defaultValue = "US,DE,FR,IN,BR,JP,GB,CA,AU,NL",
            description =
                    "countries given to customers 1, 2, 3 ... in turn (default: ${DEFAULT-VALUE})")
    List<String> countries;

    @Override
    public Integer call() {
        land(new Warehouse(common.warehouse()), countries);
        System.out.println("customers: 50 rows, countries " + countries);
        return 0;
    }

    /** Replaces the whole table; a run that reads it sees the old or the new files, never none. */
    static void land(Warehouse warehouse, List<String> countries) {
        warehouse.declare(EnrichedQuery.CUSTOMERS, ROW, "land-customers");
        List<RowData> rows = new ArrayList<>();
        for (int id = 1; id <= 50; id++) {
            rows.add(
                    GenericRowData.of(
                            id, StringData.fromString(countries.get((id - 1) % countries.size()))));
        }
        new TableRewriter(warehouse, EnrichedQuery.CUSTOMERS).replace(row -> true, rows);
    }
}
