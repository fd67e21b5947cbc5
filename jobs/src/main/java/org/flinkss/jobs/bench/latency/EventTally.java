package org.flinkss.jobs.bench.latency;

import java.util.BitSet;

/**
 * The output of a query that writes one record per event (bronze), keyed by {@code event_id}: the
 * measured events {@code first .. first + n - 1} must each be read exactly once. The latency of an
 * event is taken at its first arrival; a later copy counts as duplicated. Records of other ids (the
 * warm-up's) are not counted.
 */
final class EventTally implements OutputTally {

    private long first = Long.MAX_VALUE;
    private long n;
    private long fromMillis = Long.MAX_VALUE;
    private final BitSet seen = new BitSet();
    private final Latencies latencies = new Latencies();
    private long duplicated;

    @Override
    public void expect(long first, long n, long fromMillis) {
        if (n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "at most " + Integer.MAX_VALUE + " events, not " + n);
        }
        this.first = first;
        this.n = n;
        this.fromMillis = fromMillis;
    }

    @Override
    public void read(String key, String value, long sentMillis, long readMillis) {
        long id = Long.parseLong(key);
        if (id < first || id - first >= n) {
            return;
        }
        int bit = (int) (id - first);
        if (seen.get(bit)) {
            duplicated++;
        } else {
            seen.set(bit);
            latencies.add(sentMillis, readMillis - sentMillis);
        }
    }

    @Override
    public boolean complete() {
        return seen.cardinality() == n;
    }

    @Override
    public Counts counts() {
        int distinct = seen.cardinality();
        return new Counts(
                distinct + duplicated,
                n - distinct,
                duplicated,
                latencies.summary(),
                latencies.bySecond(fromMillis));
    }
}
