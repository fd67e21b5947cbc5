package org.flinkss.jobs.report;

import org.apache.flink.core.fs.Path;

import com.fasterxml.jackson.databind.node.ObjectNode;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.ops.QueryCheckpoint;
import org.flinkss.runtime.sink.jdbc.Database;
import org.flinkss.runtime.table.Warehouse;

import javax.annotation.Nullable;

import java.io.IOException;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Reads what a report shows: each query's progress log under {@code <base>/_cp}, the windowed
 * tables of the warehouse and (update mode keeps them there) of the SQL database, and the first
 * rows of the late-row and quarantine tables. Renders nothing ({@link ReportPage} does).
 */
public final class ReportGatherer {

    private final Warehouse warehouse;
    @Nullable private final Database database;

    public ReportGatherer(Warehouse warehouse, @Nullable Database database) {
        this.warehouse = warehouse;
        this.database = database;
    }

    /** The report's data for a base anywhere (a local folder or {@code s3://bucket/prefix}). */
    public ReportData gather(Path base, String shownAs) throws IOException {
        return gather(QueryCheckpoint.allUnder(base), shownAs);
    }

    private ReportData gather(List<QueryCheckpoint> checkpoints, String shownAs) {
        List<QueryHistory> queries = new ArrayList<>();
        List<ExpectationTally> expectations = new ArrayList<>();
        for (QueryCheckpoint cp : checkpoints) {
            List<ObjectNode> progress = cp.progress();
            List<Batch> batches = progress.stream().map(Batch::fromProgress).toList();
            if (!batches.isEmpty()) {
                queries.add(new QueryHistory(cp.query(), batches));
            }
            expectations.addAll(ExpectationTally.of(cp.query(), progress));
        }
        List<WindowedTable> windowed = new ArrayList<>();
        List<RowSample> late = new ArrayList<>();
        List<RowSample> quarantine = new ArrayList<>();
        List<RowSample> rejected = new ArrayList<>();
        for (String table : warehouse.tables()) {
            List<String> columns = warehouse.rowType(table).getFieldNames();
            if (WindowedTable.isWindowed(columns)) {
                windowed.add(windowedTable(table, columns, false, warehouse.sortedValues(table)));
            } else if (table.endsWith("_late")) {
                late.add(sample(table, columns, warehouse.sortedValues(table)));
            } else if (table.endsWith("_quarantine")) {
                quarantine.add(sample(table, columns, warehouse.sortedValues(table)));
            } else if (table.endsWith("_rejected")) {
                rejected.add(sample(table, columns, warehouse.sortedValues(table)));
            }
        }
        if (database != null) {
            windowed.addAll(databaseTables(database));
        }
        return new ReportData(
                shownAs,
                Instant.now(),
                queries,
                windowed,
                late,
                quarantine,
                expectations,
                rejected);
    }

    private static List<WindowedTable> databaseTables(Database database) {
        List<WindowedTable> tables = new ArrayList<>();
        try {
            for (String table : database.tables()) {
                List<String> columns = database.columns(table);
                if (WindowedTable.isWindowed(columns)) {
                    tables.add(windowedTable(table, columns, true, database.rows(table)));
                }
            }
        } catch (SQLException e) {
            throw new QueryException(
                    "the report cannot read "
                            + database.describe()
                            + ": "
                            + e.getMessage()
                            + "; check that the database answers, or leave --jdbc-url out",
                    e);
        }
        return tables;
    }

    private static WindowedTable windowedTable(
            String table, List<String> columns, boolean inDatabase, List<List<Object>> values) {
        List<WindowRow> rows = new ArrayList<>();
        for (List<Object> row : values) {
            Object amount = row.get(4);
            rows.add(
                    new WindowRow(
                            instant(row.get(0)),
                            instant(row.get(1)),
                            String.valueOf(row.get(2)),
                            ((Number) row.get(3)).longValue(),
                            amount == null ? null : ((Number) amount).doubleValue()));
        }
        rows.sort(Comparator.comparing(WindowRow::start).thenComparing(WindowRow::key));
        return new WindowedTable(table, columns.get(2), inDatabase, rows);
    }

    private static Instant instant(Object value) {
        if (value instanceof Instant instant) {
            return instant;
        }
        if (value instanceof LocalDateTime time) {
            return time.toInstant(ZoneOffset.UTC);
        }
        if (value instanceof java.sql.Timestamp timestamp) {
            return timestamp.toInstant();
        }
        throw new IllegalStateException("a window bound that is no time: " + value);
    }

    private static RowSample sample(String table, List<String> columns, List<List<Object>> rows) {
        List<List<String>> shown =
                rows.stream()
                        .limit(RowSample.SHOWN)
                        .map(
                                row ->
                                        row.stream()
                                                .map(v -> v == null ? "" : String.valueOf(v))
                                                .toList())
                        .toList();
        return new RowSample(table, rows.size(), columns, shown);
    }
}
