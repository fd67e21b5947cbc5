package org.flinkss.runtime.query;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.source.SplitPlanner;
import org.flinkss.runtime.source.delta.DeltaPlanner;
import org.flinkss.runtime.table.delta.Completeness;
import org.flinkss.runtime.table.delta.DeltaTable;
import org.flinkss.runtime.time.Watermarks;

import javax.annotation.Nullable;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code --until-final T} on a query that reads Delta tables of this project: the run reads the
 * versions there are only if the newest batch commit of each table says that its windows ending at
 * or before {@code T} are final ({@link Completeness}). Otherwise it is refused before any data
 * moves, naming the table, {@code T} and how far the table is final: an availableNow run reads what
 * is there when it starts, so waiting would wait for a writer that may never run; the caller runs
 * the writer and then this query again (a scheduler retries it).
 */
final class UntilFinal {

    @Nullable private final Instant until;

    /** The Delta tables read: name to folder. */
    private final Map<String, String> tables = new LinkedHashMap<>();

    UntilFinal(@Nullable Instant until) {
        this.until = until;
    }

    /** Notes a source: a Delta table's is checked. */
    void reads(SplitPlanner<?> planner) {
        if (planner instanceof DeltaPlanner delta) {
            tables.put(delta.table(), delta.folder());
        }
    }

    /**
     * What {@code --until-final} says of each Delta table read, checking without reading a row:
     * final up to {@code T} or not, and why ({@code run --dry-run} prints it). None without {@code
     * --until-final}.
     */
    List<Finding> findings(String queryName) {
        if (until == null) {
            return List.of();
        }
        if (tables.isEmpty()) {
            return List.of(
                    new Finding(
                            false,
                            "--until-final "
                                    + until
                                    + ": query '"
                                    + queryName
                                    + "' reads no Delta table, so nothing says how far its input"
                                    + " is final. It is for a query downstream of a windowed table"
                                    + " (a 'sql --file' over events_5min, say); leave it out"
                                    + " here"));
        }
        List<Finding> findings = new ArrayList<>();
        tables.forEach(
                (name, folder) ->
                        findings.add(finding(queryName, name, DeltaTable.forPath(folder))));
        return findings;
    }

    /** Refuses the run unless every Delta table read is final up to {@code T}. */
    void check(String queryName) {
        for (Finding finding : findings(queryName)) {
            if (!finding.isFinal()) {
                throw new QueryException(finding.line());
            }
        }
    }

    private Finding finding(String queryName, String name, DeltaTable table) {
        long version = table.version();
        Completeness completeness = table.completenessAt(version);
        if (completeness.finalBefore() == null) {
            return new Finding(
                    false,
                    "--until-final "
                            + until
                            + ": table "
                            + name
                            + ", read by query '"
                            + queryName
                            + "', records no final windows in its newest batch commit (version "
                            + version
                            + "): only a windowed query in append or update mode records them"
                            + " (see 'table history "
                            + name
                            + "'). Leave --until-final out to read it as it is");
        }
        String upTo = Watermarks.formatInstant(completeness.finalBefore());
        if (completeness.finalBefore() < until.toEpochMilli()) {
            return new Finding(
                    false,
                    "--until-final "
                            + until
                            + ": table "
                            + name
                            + " is final only up to "
                            + upTo
                            + " (version "
                            + version
                            + "), not up to "
                            + until
                            + ": windows ending after that may still change. Query '"
                            + queryName
                            + "' read nothing; run the query that writes "
                            + name
                            + " once newer events have landed, then run this again");
        }
        return new Finding(
                true,
                "--until-final "
                        + until
                        + ": table "
                        + name
                        + " is final up to "
                        + upTo
                        + " (version "
                        + version
                        + "): the run would read it");
    }

    /** One table's verdict: final up to {@code T} or not, in one line that says why. */
    record Finding(boolean isFinal, String line) {}
}
