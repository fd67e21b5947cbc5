package org.flinkss.sparkdiff;

import java.util.ArrayList;
import java.util.List;

/**
 * The differences from Spark that the project has today, each with the point of issue 13 that
 * explains it. A table that differs in a way listed here is reported, not failed; one listed here
 * that no table shows in the whole run fails the test, so the list shrinks as the fixes land: when
 * a fix makes an entry fail with "did not occur", delete the entry.
 *
 * <p>An entry names a query (see {@link DiffQuery#id}), an API ({@code datastream}, {@code table},
 * or {@link #BOTH}) and what differs: {@link Part#ROWS} (rows differ even with Spark's timestamps
 * cut to milliseconds) or {@link Part#PRECISION} (rows differ only by Spark's microseconds).
 */
final class ExpectedDifferences {

    enum Part {
        ROWS,
        PRECISION
    }

    static final String BOTH = "*";

    /**
     * @param timing true for a difference that depends on the timing of a parallel run: it is
     *     reported where it occurs, and a run where it does not occur does not fail
     */
    record Entry(
            String query, String api, Part part, String points, String reason, boolean timing) {

        boolean covers(TableDiff diff, Part present) {
            return part == present
                    && query.equals(diff.query().id)
                    && (api.equals(BOTH) || api.equals(diff.api()));
        }

        @Override
        public String toString() {
            return query
                    + " ["
                    + (api.equals(BOTH) ? "both APIs" : api)
                    + "] "
                    + part.name().toLowerCase()
                    + " ("
                    + points
                    + "): "
                    + reason;
        }
    }

    private ExpectedDifferences() {}

    static Entry rows(String query, String api, String points, String reason) {
        return new Entry(query, api, Part.ROWS, points, reason, false);
    }

    static Entry precision(String query, String points, String reason) {
        return new Entry(query, BOTH, Part.PRECISION, points, reason, false);
    }

    /**
     * Today's list, as measured on Spark 4.0.4 and 4.2: empty. The last entry, user-hop's windows
     * that end at or before the epoch in sql --file at parallelism 2 and 4, went when the
     * micro-batch source started a run's first batch only after every reader's epoch watermark
     * (issue 31); the ones before it, a session's start and end in milliseconds (issue 13 point 6),
     * when sessions and the join's range moved to microseconds. Add an entry only for a difference
     * that is understood; one that is not meant to stay says which work removes it.
     */
    static final List<Entry> KNOWN = List.of();

    /**
     * The entries that cover the part of {@code diff} that is present, or an empty list if none
     * does.
     */
    static List<Entry> covering(List<Entry> known, TableDiff diff, Part present) {
        List<Entry> found = new ArrayList<>();
        for (Entry e : known) {
            if (e.covers(diff, present)) {
                found.add(e);
            }
        }
        return found;
    }
}
