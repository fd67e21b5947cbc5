package org.flinkss.jobs.report;

import java.time.Instant;
import java.util.List;

/**
 * Everything a report shows, gathered before anything is rendered ({@link ReportGatherer}).
 *
 * @param base the base it reports on, as the user named it
 * @param generated when it was gathered
 * @param queries each query with at least one committed batch, by name
 * @param windowedTables the windowed tables of the warehouse and of the SQL database
 * @param lateRows the {@code <table>_late} tables
 * @param quarantine the quarantine tables
 * @param expectations each query's expectations, summed over its batches
 * @param rejected the {@code <table>_rejected} tables of the expectations' drop rules
 */
public record ReportData(
        String base,
        Instant generated,
        List<QueryHistory> queries,
        List<WindowedTable> windowedTables,
        List<RowSample> lateRows,
        List<RowSample> quarantine,
        List<ExpectationTally> expectations,
        List<RowSample> rejected) {

    public ReportData {
        queries = List.copyOf(queries);
        windowedTables = List.copyOf(windowedTables);
        lateRows = List.copyOf(lateRows);
        quarantine = List.copyOf(quarantine);
        expectations = List.copyOf(expectations);
        rejected = List.copyOf(rejected);
    }
}
