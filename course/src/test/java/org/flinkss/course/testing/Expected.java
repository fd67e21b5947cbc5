package org.flinkss.course.testing;

import org.flinkss.course.event.Event;
import org.flinkss.runtime.table.RowValues;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What Spark writes for the course's windowed queries, computed the plain way (no Flink), to
 * compare tables with: group every event into its windows, keep the windows whose end is at or
 * before the watermark.
 */
public final class Expected {

    private Expected() {}

    public static final long MINUTE = 60_000L;

    /** Rows {@code [window_start, window_end, key, events, amount]} sorted by every column. */
    public static List<List<Object>> windows(
            List<Event> events, long size, long slide, boolean byUser, long watermark) {
        Map<List<Object>, double[]> groups = new TreeMap<>(Comparator.comparing(Object::toString));
        for (Event e : events) {
            long ts = e.eventTs.toEpochMilli();
            for (long start = ts - Math.floorMod(ts, slide); start > ts - size; start -= slide) {
                List<Object> key =
                        List.of(start, start + size, byUser ? (Object) e.userId : e.eventType);
                double[] acc = groups.computeIfAbsent(key, k -> new double[2]);
                acc[0]++;
                acc[1] += e.amount;
            }
        }
        return rows(groups, watermark);
    }

    /**
     * Session windows with a gap: events at most one gap apart share a session; end = last + gap.
     */
    public static List<List<Object>> sessions(List<Event> events, long gap, long watermark) {
        Map<Integer, List<Event>> byUser = new TreeMap<>();
        for (Event e : events) {
            byUser.computeIfAbsent(e.userId, u -> new ArrayList<>()).add(e);
        }
        Map<List<Object>, double[]> groups = new TreeMap<>(Comparator.comparing(Object::toString));
        for (Map.Entry<Integer, List<Event>> user : byUser.entrySet()) {
            List<Event> list = user.getValue();
            list.sort(Comparator.comparing(e -> e.eventTs));
            long start = -1;
            long end = -1;
            double count = 0;
            double sum = 0;
            for (Event e : list) {
                long ts = e.eventTs.toEpochMilli();
                if (count > 0 && ts <= end) {
                    end = Math.max(end, ts + gap);
                } else {
                    if (count > 0) {
                        groups.put(List.of(start, end, user.getKey()), new double[] {count, sum});
                    }
                    start = ts;
                    end = ts + gap;
                    count = 0;
                    sum = 0;
                }
                count++;
                sum += e.amount;
            }
            if (count > 0) {
                groups.put(List.of(start, end, user.getKey()), new double[] {count, sum});
            }
        }
        return rows(groups, watermark);
    }

    private static List<List<Object>> rows(Map<List<Object>, double[]> groups, long watermark) {
        List<List<Object>> rows = new ArrayList<>();
        groups.forEach(
                (key, acc) -> {
                    long end = (Long) key.get(1);
                    if (end <= watermark) {
                        rows.add(
                                List.of(
                                        Instant.ofEpochMilli((Long) key.get(0)),
                                        Instant.ofEpochMilli(end),
                                        key.get(2),
                                        (long) acc[0],
                                        BigDecimal.valueOf(acc[1])
                                                .setScale(2, RoundingMode.HALF_UP)
                                                .doubleValue()));
                    }
                });
        rows.sort(RowValues.ORDER);
        return rows;
    }

    public static long maxEventTime(List<Event> events) {
        return events.stream().map(e -> e.eventTs.toEpochMilli()).max(Long::compare).orElseThrow();
    }
}
