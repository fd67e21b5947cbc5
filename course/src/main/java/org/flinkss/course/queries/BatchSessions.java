package org.flinkss.course.queries;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;

import org.flinkss.course.operators.CountAndSum;
import org.flinkss.course.tables.EventTables;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * The sessions of a finished set of event rows ({@link EventTables#EVENT_ROW}), as Spark computes
 * them in a batch, in the session table's row type: what {@code recompute} rebuilds from bronze
 * ({@link WindowQuery#sessionRows}). A stream's sessions are the window operator's.
 */
final class BatchSessions {

    private BatchSessions() {}

    /**
     * The sessions of {@code events} with a gap of {@code gapMicros}: rows by user in time order
     * (microseconds), a row within the gap of the session so far (at or before its end) joins it,
     * the sums in time order. Rows without event time belong to no session.
     */
    static List<RowData> of(List<RowData> events, long gapMicros) {
        int user = EventTables.EVENT_ROW.getFieldIndex("user_id");
        int ts = EventTables.EVENT_ROW.getFieldIndex("event_ts");
        int amount = EventTables.EVENT_ROW.getFieldIndex("amount");
        long gap = gapMicros;
        List<long[]> order = new ArrayList<>(); // (index, micros)
        for (int i = 0; i < events.size(); i++) {
            RowData e = events.get(i);
            if (!e.isNullAt(ts)) {
                TimestampData t = e.getTimestamp(ts, EventTables.EVENT_TS_PRECISION);
                order.add(
                        new long[] {
                            i, t.getMillisecond() * 1000 + t.getNanoOfMillisecond() / 1000
                        });
            }
        }
        Comparator<long[]> byUser =
                Comparator.comparing(
                        (long[] r) ->
                                events.get((int) r[0]).isNullAt(user)
                                        ? null
                                        : events.get((int) r[0]).getInt(user),
                        Comparator.nullsFirst(Comparator.<Integer>naturalOrder()));
        order.sort(byUser.thenComparingLong(r -> r[1]));
        List<RowData> sessions = new ArrayList<>();
        Integer current = null;
        long start = 0;
        long end = Long.MIN_VALUE;
        CountAndSum acc = null;
        for (long[] r : order) {
            RowData e = events.get((int) r[0]);
            Integer u = e.isNullAt(user) ? null : e.getInt(user);
            if (acc == null || !Objects.equals(u, current) || r[1] > end) {
                if (acc != null) {
                    sessions.add(sessionRow(start, end, current, acc));
                }
                current = u;
                start = r[1];
                end = r[1] + gap;
                acc = new CountAndSum();
            } else {
                end = Math.max(end, r[1] + gap);
            }
            acc.events++;
            if (!e.isNullAt(amount)) {
                acc.amount += e.getDouble(amount);
                acc.hasAmount = true;
            }
        }
        if (acc != null) {
            sessions.add(sessionRow(start, end, current, acc));
        }
        return sessions;
    }

    private static RowData sessionRow(long start, long end, Integer user, CountAndSum acc) {
        return GenericRowData.of(
                WindowQuery.timestampOfMicros(start),
                WindowQuery.timestampOfMicros(end),
                user,
                acc.events,
                acc.roundedAmount());
    }
}
