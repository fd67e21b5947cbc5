package org.flinkss.jobs.cli;

import org.apache.flink.table.types.logical.RowType;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import org.flinkss.jobs.cli.options.BaseFolder;
import org.flinkss.jobs.cli.options.Converters;
import org.flinkss.jobs.cli.options.DataOptions;
import org.flinkss.jobs.cli.output.Stdout;
import org.flinkss.jobs.cli.output.TablePrinter;
import org.flinkss.runtime.table.RowValues;
import org.flinkss.runtime.table.delta.ChangeDataFeed;
import org.flinkss.runtime.table.delta.DeltaTable;
import org.flinkss.runtime.table.delta.FeedRow;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code table changes <name> [--from-version N] [--to-version M] [--csv]}: a Delta table's change
 * data feed, as Spark's {@code table_changes(name, N, M)} shows it: the table's columns, then
 * {@code _change_type}, {@code _commit_version} and {@code _commit_timestamp}; by version, then by
 * every column, a row's pre-image before its post-image.
 */
@Command(
        name = "changes",
        mixinStandardHelpOptions = true,
        description =
                "The table's change data feed (Delta's readChangeFeed, table_changes): each row"
                        + " inserted, updated (update_preimage, update_postimage) or deleted by"
                        + " versions N to M, with _change_type, _commit_version and"
                        + " _commit_timestamp. Tables written by a MERGE or in complete mode have"
                        + " the feed.")
final class TableChangesCommand implements Callable<Integer> {

    @Mixin DataOptions data;

    @Parameters(paramLabel = "TABLE")
    String table;

    @Option(
            names = "--from-version",
            paramLabel = "N",
            converter = Converters.TableVersion.class,
            description = "the first version to read (default: 0)")
    long from;

    @Option(
            names = "--to-version",
            paramLabel = "M",
            converter = Converters.TableVersion.class,
            description = "the last version to read (default: the table's current version)")
    Long to;

    @Option(
            names = "--limit",
            defaultValue = "20",
            converter = Converters.PositiveInt.class,
            description = "rows to show without --csv (default: ${DEFAULT-VALUE})")
    int limit;

    @Option(names = "--csv", description = "every row as CSV, with one header line")
    boolean csv;

    @Override
    public Integer call() {
        data.refuseJdbcUrl("table changes"); // Delta tables only
        BaseFolder.refuseFile(data);
        DeltaTable delta = data.openWarehouse().existing(table);
        List<FeedRow> feed;
        try {
            feed = delta.changes(from, to == null ? delta.version() : to);
        } catch (IllegalStateException | IllegalArgumentException e) {
            throw new IllegalStateException("table " + table + ": " + e.getMessage(), e);
        }
        RowType rowType = delta.rowType();
        List<String> columns = new ArrayList<>(rowType.getFieldNames());
        columns.add(ChangeDataFeed.CHANGE_TYPE);
        columns.add(ChangeDataFeed.COMMIT_VERSION);
        columns.add(ChangeDataFeed.COMMIT_TIMESTAMP);
        List<FeedRow> sorted = new ArrayList<>(feed);
        sorted.sort(
                Comparator.comparingLong(FeedRow::version)
                        .thenComparing(r -> RowValues.toList(r.row(), rowType), RowValues.ORDER)
                        .thenComparing(FeedRow::changeType));
        List<List<Object>> rows = new ArrayList<>();
        for (FeedRow r : sorted) {
            List<Object> values = new ArrayList<>(RowValues.toList(r.row(), rowType));
            values.add(r.changeType().text());
            values.add(r.version());
            values.add(r.timestamp());
            rows.add(values);
        }
        PrintStream out = Stdout.utf8();
        if (csv) {
            TablePrinter.csv(out, columns, rows);
        } else {
            out.print(RowValues.grid(columns, rows.subList(0, Math.min(limit, rows.size()))));
            if (rows.size() > limit) {
                out.println("only showing top " + limit + " of " + rows.size() + " rows");
            }
        }
        out.flush();
        return 0;
    }
}
