package org.flinkss.jobs.bench.latency;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.EventJson;

import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Writes the course's events ({@link EventGenerator}: ids {@code start, start + 1, ...}) to a topic
 * at a fixed rate, each at its own moment ({@code start time + i / rate}), not in bursts; each
 * record's Kafka timestamp is the producer's clock when it sends it: the send time that latency is
 * measured from. Key {@code event_id}, value the event's JSON line, as {@code land-events
 * --to-kafka} writes them; {@code linger.ms=5}, Kafka's default since 4.0: a record waits up to 5
 * ms for others to share its request, and that wait counts in its latency (its send time is taken
 * before). Against {@code linger.ms=0}, the p99 at 10,000 events/s was lower in each of three
 * interleaved pairs, by less than it drifts between minutes on a 2-core machine (docs/latency.md).
 *
 * <p>When the producer falls behind its schedule (a loaded machine), it sends the late records at
 * once and says by how much it was behind at worst: {@link Sent#maxBehindMillis()}.
 */
final class PacedProducer implements AutoCloseable {

    private final KafkaProducer<String, String> producer;
    private final String topic;
    private final AtomicReference<Exception> failure = new AtomicReference<>();

    PacedProducer(String bootstrapServers, String topic) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        this.producer = new KafkaProducer<>(props);
        this.topic = topic;
    }

    /** Sends one event now. */
    void send(long id) {
        Event event = EventGenerator.event(id);
        producer.send(
                new ProducerRecord<>(
                        topic,
                        null,
                        System.currentTimeMillis(),
                        Long.toString(id),
                        EventJson.toJson(event)),
                (metadata, e) -> {
                    if (e != null) {
                        failure.compareAndSet(null, e);
                    }
                });
    }

    /**
     * Sends events {@code start .. start + warm + n - 1} at {@code rate} a second, one schedule for
     * all, then waits for every acknowledgement. The first {@code warm} are the query's warm-up at
     * the rate; just before event {@code start + warm} is sent, {@code measuredFrom} is told, so
     * that only the next {@code n} are measured. What it returns is of those {@code n}.
     */
    Sent sendPaced(long start, long warm, long n, int rate, Runnable measuredFrom) {
        long begin = System.nanoTime();
        long measuredBegin = begin;
        long maxBehind = 0;
        for (long i = 0; i < warm + n; i++) {
            long due = begin + i * TimeUnit.SECONDS.toNanos(1) / rate;
            long now = System.nanoTime();
            if (due > now) {
                LockSupport.parkNanos(due - now);
            } else if (i >= warm) {
                maxBehind = Math.max(maxBehind, now - due);
            }
            if (i == warm) {
                measuredFrom.run();
                measuredBegin = System.nanoTime();
            }
            send(start + i);
        }
        long sending = System.nanoTime() - measuredBegin;
        producer.flush();
        Exception e = failure.get();
        if (e != null) {
            throw new IllegalStateException("sending to topic " + topic + " failed: " + e, e);
        }
        return new Sent(n, sending / 1e9, TimeUnit.NANOSECONDS.toMillis(maxBehind));
    }

    @Override
    public void close() {
        producer.close();
    }

    /** What was sent: how many, over how many seconds, and how far behind schedule at worst. */
    record Sent(long events, double seconds, long maxBehindMillis) {
        double rate() {
            return seconds > 0 ? events / seconds : events;
        }
    }
}
