package org.flinkss.jobs.bench.latency;

import java.util.concurrent.TimeUnit;

/**
 * One measurement against a query that is running: warm-up, paced events, then waiting for what
 * they give to arrive in the output topic.
 */
final class LatencyRun {

    private final String servers;
    private final String input;
    private final String output;
    private final boolean readCommitted;
    private final int warmupSeconds;
    private final int warmSeconds;
    private final int drainSeconds;

    LatencyRun(
            String servers,
            String input,
            String output,
            boolean readCommitted,
            int warmupSeconds,
            int warmSeconds,
            int drainSeconds) {
        this.servers = servers;
        this.input = input;
        this.output = output;
        this.readCommitted = readCommitted;
        this.warmupSeconds = warmupSeconds;
        this.warmSeconds = warmSeconds;
        this.drainSeconds = drainSeconds;
    }

    /**
     * Sends {@code n} measured events at {@code rate} a second after a warm-up (the query's first
     * output, then {@code warmSeconds} at the rate) and tallies the output.
     */
    Result measure(OutputTally tally, int rate, long n) throws InterruptedException {
        try (PacedProducer producer = new PacedProducer(servers, input);
                OutputReader reader = new OutputReader(servers, output, readCommitted, tally)) {
            // Step 1: the warm-up, one event every 100 ms until the query's first output is read:
            // the job has started, its reader found the topic, its sink wrote (and, exactly once,
            // a checkpoint committed). These events are not measured.
            long first = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(warmupSeconds);
            while (reader.records() == 0) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "no record in the output topic "
                                    + output
                                    + " within "
                                    + warmupSeconds
                                    + " s of sending to "
                                    + input
                                    + ": is the query running and writing that topic? (its log"
                                    + " says; --warmup-seconds waits longer)");
                }
                producer.send(first++);
                Thread.sleep(100);
            }
            // Step 2: warmSeconds of events at the rate, which the query's code warms up on (its
            // JIT compiles what the rate runs), then the measured events, on the same schedule.
            long firstMeasured = first + (long) rate * warmSeconds;
            PacedProducer.Sent sent =
                    producer.sendPaced(
                            first,
                            firstMeasured - first,
                            n,
                            rate,
                            () -> {
                                synchronized (tally) {
                                    tally.expect(firstMeasured, n, System.currentTimeMillis());
                                }
                            });
            // Step 3: until everything they give is read, or the drain time has passed.
            long drainEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(drainSeconds);
            while (System.nanoTime() < drainEnd) {
                reader.records();
                synchronized (tally) {
                    if (tally.complete()) {
                        break;
                    }
                }
                Thread.sleep(50);
            }
            // A copy that arrives just after the last one is still a duplicate: a short look more.
            Thread.sleep(500);
            reader.records();
            synchronized (tally) {
                return new Result(sent, tally.counts());
            }
        }
    }

    /** What was sent and what the output held. */
    record Result(PacedProducer.Sent sent, OutputTally.Counts counts) {}
}
