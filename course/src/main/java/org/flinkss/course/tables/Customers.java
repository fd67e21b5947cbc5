package org.flinkss.course.tables;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import org.flinkss.runtime.table.TableDef;
import org.flinkss.runtime.table.TableMode;
import org.flinkss.runtime.table.TableOwner;
import org.flinkss.runtime.table.TableRewriter;
import org.flinkss.runtime.table.Warehouse;

import java.util.ArrayList;
import java.util.List;

/**
 * The static {@code customers} table of topic 11.09, the static side of the stream-static join:
 * {@code customer_id} 1..50 and a country each.
 */
public final class Customers {

    public static final String TABLE = "customers";

    /** The writer recorded in the table: the command that lands it. */
    public static final String WRITER = "land-customers";

    public static final int COUNT = 50;

    public static final RowType ROW =
            TableDef.columns(
                    List.of("customer_id", "country"), new IntType(), VarCharType.STRING_TYPE);

    private Customers() {}

    /**
     * Writes (or replaces) the whole table, countries given to customers 1, 2, 3 ... in turn; a run
     * that reads it sees the old or the new files, never none.
     */
    public static void land(Warehouse warehouse, List<String> countries) {
        if (countries.isEmpty()) {
            throw new IllegalArgumentException("the customers need at least one country");
        }
        warehouse.own(TABLE, ROW, TableOwner.command(WRITER), TableMode.APPENDED);
        List<RowData> rows = new ArrayList<>();
        for (int id = 1; id <= COUNT; id++) {
            rows.add(
                    GenericRowData.of(
                            id, StringData.fromString(countries.get((id - 1) % countries.size()))));
        }
        new TableRewriter(warehouse, TABLE).replace(row -> true, rows);
    }
}
