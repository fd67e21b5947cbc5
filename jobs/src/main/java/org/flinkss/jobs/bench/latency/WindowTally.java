package org.flinkss.jobs.bench.latency;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventGenerator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;

/**
 * The output of win5 in update mode: records keyed {@code <event_type>@<window start in epoch
 * seconds>}, each the window's row after a change, {@code events} its count so far. Every event
 * sent (warm-up and measured) is counted in its window; once they have gone through, the last
 * update read of each window must count exactly its events. An event short is missing, one too many
 * duplicated.
 *
 * <p>Latency of an update: from the send time of the newest event its window counts (the update's
 * Kafka timestamp, {@code MAX(sent)} in the query) to the moment it is read. Updates the warm-up's
 * events gave (sent before {@code measuredFromMillis}) are not counted.
 */
final class WindowTally implements OutputTally {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long WINDOW_SECONDS = 300;

    private long measuredFromMillis = Long.MAX_VALUE;
    private final Map<String, Long> expected = new HashMap<>();
    private final Map<String, Long> last = new HashMap<>();
    private final Latencies latencies = new Latencies();
    private long updates;

    @Override
    public void expect(long first, long n, long fromMillis) {
        expected.clear();
        for (long id = 0; id < first + n; id++) {
            expected.merge(key(EventGenerator.event(id)), 1L, Long::sum);
        }
        this.measuredFromMillis = fromMillis;
    }

    /** The window's key as the query writes it: {@code <event_type>@<window start, seconds>}. */
    static String key(Event event) {
        long seconds = event.eventTs.getEpochSecond();
        return event.eventType + "@" + (seconds - Math.floorMod(seconds, WINDOW_SECONDS));
    }

    @Override
    public void read(String key, String value, long sentMillis, long readMillis) {
        try {
            JsonNode row = JSON.readTree(value);
            last.put(key, row.path("events").asLong());
        } catch (IOException e) {
            throw new UncheckedIOException("not a window's row in the output: " + value, e);
        }
        if (sentMillis >= measuredFromMillis) {
            updates++;
            latencies.add(sentMillis, readMillis - sentMillis);
        }
    }

    @Override
    public boolean complete() {
        return !expected.isEmpty() && expected.equals(last);
    }

    @Override
    public Counts counts() {
        long missing = 0;
        long duplicated = 0;
        for (Map.Entry<String, Long> e : expected.entrySet()) {
            long got = last.getOrDefault(e.getKey(), 0L);
            missing += Math.max(0, e.getValue() - got);
            duplicated += Math.max(0, got - e.getValue());
        }
        for (Map.Entry<String, Long> e : last.entrySet()) {
            if (!expected.containsKey(e.getKey())) {
                duplicated += e.getValue();
            }
        }
        return new Counts(
                updates,
                missing,
                duplicated,
                latencies.summary(),
                latencies.bySecond(measuredFromMillis));
    }
}
