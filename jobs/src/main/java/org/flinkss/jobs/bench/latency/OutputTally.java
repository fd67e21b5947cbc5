package org.flinkss.jobs.bench.latency;

import java.util.Map;

/**
 * What a query's output topic should hold once the events sent have gone through, and how far it
 * does: each record read is handed to {@link #read}, with the moment it was read.
 */
interface OutputTally {

    /**
     * What is sent: the events {@code 0 .. first - 1} were the warm-up, {@code first .. first + n -
     * 1} are measured, the first of them sent at {@code fromMillis}. Records are read before this
     * is called (the warm-up's); only those of the measured events count.
     */
    void expect(long first, long n, long fromMillis);

    /** One record of the output topic, read at {@code readMillis} (the consumer's clock). */
    void read(String key, String value, long sentMillis, long readMillis);

    /** Whether everything the events sent should give has been read. */
    boolean complete();

    /** The counts and latencies so far. */
    Counts counts();

    /**
     * Records read (those the measured events gave), how many of the measured events are missing
     * from the output and how many were read more than once, and the latencies of the records read:
     * over all of them, and second by second of send time from the first measured event's ({@link
     * Latencies#bySecond}).
     */
    record Counts(
            long read,
            long missing,
            long duplicated,
            Latencies.Summary latency,
            Map<Long, Latencies.Summary> bySecond) {}
}
