package org.flinkss.runtime.source.kafka;

import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.flinkss.runtime.progress.SourcePlan;
import org.flinkss.runtime.source.ReadLimit;
import org.flinkss.runtime.source.SplitPlanner;

import javax.annotation.Nullable;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Plans micro-batches over Kafka partitions, as Spark's Kafka source: a batch reads, for each
 * partition with new data, the offsets {@code [committed, target)}.
 *
 * <ul>
 *   <li>The committed position is an offset per topic-partition, kept in the query's checkpoint
 *       (the enumerator's state). No consumer group is used or committed to.
 *   <li>{@link #refreshTarget()} finds the partitions (subscribe, subscribePattern or assign; new
 *       partitions and topics are found at every refresh, once a second in a real-time run: {@link
 *       #REAL_TIME_FULL_REFRESH}) and their end offsets at that moment, read with {@code
 *       read_committed}: the last stable offset, so a batch never waits for an open transaction. An
 *       availableNow run refreshes once, at its start.
 *   <li>{@code startingOffsets} apply to the query's first batch only. That batch includes every
 *       partition, even with nothing to read, so that {@code latest} is pinned in the checkpoint as
 *       in Spark's offset log (the batch may have 0 rows). Partitions that appear later start at
 *       their earliest offset.
 *   <li>{@code maxOffsetsPerTrigger} splits a backlog into batches, pro rata by partition, as in
 *       Spark; {@code maxFilesPerTrigger} limits the partitions of a batch (both {@link
 *       ReadLimit}).
 *   <li>Offsets that are gone (retention, a deleted and recreated topic) fail the query with {@code
 *       failOnDataLoss} (the default); without it the batch starts at the earliest offset.
 * </ul>
 *
 * <p>{@link #refreshTarget()} runs in a worker thread of the enumerator, everything else in its
 * coordinator thread: the target is replaced whole, and the committed offsets are read under a
 * lock.
 */
public final class KafkaPlanner implements SplitPlanner<KafkaSplit> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(KafkaPlanner.class);

    private static final Comparator<TopicPartition> ORDER =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    /**
     * How often a real-time run's refresh, every few milliseconds, is a full one: topics,
     * partitions, their earliest and end offsets (four requests and their metadata lookups).
     * Between full ones a refresh asks only the known partitions' end offsets, so a new topic or
     * partition, or offsets gone from a partition's start, are seen within a second.
     */
    static final Duration REAL_TIME_FULL_REFRESH = Duration.ofSeconds(1);

    private final KafkaSourceOptions options;

    private transient Map<TopicPartition, Long> committed;

    /**
     * Whether Kafka answered this source: the JobManager keeps the source, and so this flag, across
     * the job's restarts, but not across runs (a new job) ({@link KafkaAdmin#answered}).
     */
    private transient volatile boolean answered;

    private transient boolean initialized;
    private transient long commits;
    private transient volatile Target target;

    /**
     * The admin client kept between refreshes of a real-time run, which refreshes every few
     * milliseconds; closed by {@link #close()}, or dropped when a refresh fails.
     */
    private transient KafkaAdmin kept;

    private transient boolean keepAdmin;

    /** When the last full refresh began ({@link System#nanoTime}). */
    private transient long lastFullRefresh;

    public KafkaPlanner(KafkaSourceOptions options) {
        this.options = options;
    }

    public KafkaSourceOptions options() {
        return options;
    }

    /**
     * What exists at a refresh: for each partition its earliest offset, its end, and where it
     * starts if not committed yet.
     */
    static final class Target {
        final TreeMap<TopicPartition, Long> earliest = new TreeMap<>(ORDER);
        final TreeMap<TopicPartition, Long> end = new TreeMap<>(ORDER);
        final TreeMap<TopicPartition, Long> start = new TreeMap<>(ORDER);
    }

    @Override
    public synchronized void restore(byte[] bytes) throws IOException {
        committed = new TreeMap<>(ORDER);
        initialized = false;
        commits = 0;
        target = null;
        if (bytes != null) {
            DataInputDeserializer in = new DataInputDeserializer(bytes);
            int version = in.readInt();
            if (version != 1) {
                throw new IOException("unknown Kafka position version " + version);
            }
            initialized = in.readBoolean();
            commits = in.readLong();
            int n = in.readInt();
            for (int i = 0; i < n; i++) {
                committed.put(new TopicPartition(in.readUTF(), in.readInt()), in.readLong());
            }
        }
    }

    @Override
    public synchronized byte[] committed() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64 + committed.size() * 32);
        out.writeInt(1);
        out.writeBoolean(initialized);
        out.writeLong(commits);
        out.writeInt(committed.size());
        for (Map.Entry<TopicPartition, Long> e : committed.entrySet()) {
            out.writeUTF(e.getKey().topic());
            out.writeInt(e.getKey().partition());
            out.writeLong(e.getValue());
        }
        return out.getCopyOfBuffer();
    }

    @Override
    public void refreshTarget() throws IOException {
        boolean first;
        TreeSet<TopicPartition> known = new TreeSet<>(ORDER);
        synchronized (this) {
            first = !initialized;
            known.addAll(committed.keySet());
        }
        Target next = new Target();
        KafkaAdmin admin =
                kept != null
                        ? kept
                        : new KafkaAdmin(
                                options.bootstrapServers, options.clientProperties, answered);
        boolean ok = false;
        Target previous = target;
        try {
            if (betweenFullRefreshes(previous) && endsOnly(admin, previous, next)) {
                ok = true;
                return;
            }
            lastFullRefresh = System.nanoTime();
            List<TopicPartition> partitions = admin.partitions(options);
            next.end.putAll(admin.endOffsets(partitions));
            next.earliest.putAll(admin.earliestOffsets(partitions));
            List<TopicPartition> fresh = new ArrayList<>();
            for (TopicPartition tp : partitions) {
                if (!known.contains(tp)) {
                    fresh.add(tp);
                }
            }
            if (first) {
                next.start.putAll(startingOffsets(fresh, next));
            } else {
                for (TopicPartition tp : fresh) {
                    LOG.info(
                            "Kafka source {}: new partition {}, read from its earliest offset {}",
                            options.description(),
                            tp,
                            next.earliest.get(tp));
                    next.start.put(tp, next.earliest.get(tp));
                }
            }
            ok = true;
        } finally {
            answered = admin.answered();
            if (ok && keepAdmin) {
                kept = admin;
            } else {
                kept = null;
                admin.close();
            }
            if (ok) {
                target = next;
            }
        }
    }

    /** Whether a real-time run's full refresh of less than a second ago still holds. */
    private boolean betweenFullRefreshes(@Nullable Target previous) {
        return previous != null
                && keepAdmin
                && System.nanoTime() - lastFullRefresh < REAL_TIME_FULL_REFRESH.toNanos();
    }

    /**
     * A real-time refresh between full ones: the known partitions' ends (one request), their
     * earliest offsets and starts as the last full refresh found them. False if Kafka did not say
     * within a second (a partition gone with its topic): then a full refresh does.
     */
    private boolean endsOnly(KafkaAdmin admin, Target previous, Target next) {
        Optional<Map<TopicPartition, Long>> ends =
                admin.endOffsetsWithin(previous.end.keySet(), REAL_TIME_FULL_REFRESH);
        if (ends.isEmpty()) {
            return false;
        }
        next.end.putAll(ends.get());
        next.earliest.putAll(previous.earliest);
        next.start.putAll(previous.start);
        return true;
    }

    @Override
    public boolean readsInRealTime() {
        return true;
    }

    /** Its refreshes, every few milliseconds, share one admin client. */
    @Override
    public void startRealTime() {
        keepAdmin = true;
    }

    @Override
    public void close() {
        KafkaAdmin admin = kept;
        kept = null;
        if (admin != null) {
            admin.close();
        }
    }

    /** Spark's startingOffsets for the partitions of the first batch. */
    private Map<TopicPartition, Long> startingOffsets(List<TopicPartition> partitions, Target t) {
        StartingOffsets starting = options.startingOffsets;
        Map<TopicPartition, Long> start = new HashMap<>();
        if (starting.isSpecific()) {
            TreeSet<TopicPartition> named = new TreeSet<>(ORDER);
            starting.specific()
                    .forEach(
                            (topic, ps) ->
                                    ps.keySet()
                                            .forEach(p -> named.add(new TopicPartition(topic, p))));
            TreeSet<TopicPartition> found = new TreeSet<>(ORDER);
            found.addAll(partitions);
            if (!named.equals(found)) {
                // Spark's rule: the JSON must name every partition that the source reads.
                throw new IllegalArgumentException(
                        "startingOffsets "
                                + starting
                                + " must name every partition that "
                                + options.description()
                                + " reads, with -2 for earliest and -1 for latest. Named: "
                                + named
                                + ", found: "
                                + found);
            }
        }
        for (TopicPartition tp : partitions) {
            long wanted =
                    starting.isSpecific()
                            ? starting.specific().get(tp.topic()).get(tp.partition())
                            : starting.forAll();
            long offset;
            if (wanted == StartingOffsets.EARLIEST) {
                offset = t.earliest.get(tp);
            } else if (wanted == StartingOffsets.LATEST) {
                offset = t.end.get(tp);
            } else {
                // An offset beyond the end waits for data to reach it; one before the start is
                // handled as lost data.
                offset = wanted;
            }
            start.put(tp, offset);
        }
        return start;
    }

    @Override
    public synchronized List<KafkaSplit> nextBatch(long batchId, ReadLimit limit)
            throws IOException {
        int maxUnits = limit.maxUnits();
        Target t = target;
        if (t == null) {
            return List.of();
        }
        Map<TopicPartition, long[]> ranges = ranges(t);
        if (limit.maxOffsetsPerTrigger().isPresent()) {
            rateLimit(ranges, limit.maxOffsetsPerTrigger().getAsLong());
        }
        List<KafkaSplit> batch = new ArrayList<>();
        for (Map.Entry<TopicPartition, long[]> e : ranges.entrySet()) {
            long from = e.getValue()[0];
            long to = e.getValue()[1];
            if (to > from || !initialized) {
                batch.add(
                        new KafkaSplit(
                                e.getKey().topic(), e.getKey().partition(), from, to, batchId, 0));
            }
        }
        if (batch.size() > maxUnits) {
            // The rest waits for the next batch: pending partitions first, empty ones of a first
            // batch after.
            batch.sort(Comparator.comparing((KafkaSplit s) -> s.to() == s.from()));
            batch = new ArrayList<>(batch.subList(0, maxUnits));
        }
        return batch;
    }

    /**
     * The offsets from the committed position to the target, and the batches the limits cut them
     * into as {@link #nextBatch} does: each batch takes Spark's pro-rata share of {@code
     * maxOffsetsPerTrigger} from the partitions with data, at most {@code maxFilesPerTrigger} of
     * them. Empty if an offset is lost (the first batch says so, or fails).
     */
    @Override
    public synchronized Optional<SourcePlan.Backlog> backlog(ReadLimit limit) {
        Target t = target;
        if (t == null) {
            return Optional.empty();
        }
        Map<TopicPartition, long[]> left;
        try {
            left = ranges(t);
        } catch (IOException lost) {
            return Optional.empty();
        }
        long offsets = 0;
        StringBuilder range = new StringBuilder();
        for (Map.Entry<TopicPartition, long[]> e : left.entrySet()) {
            offsets += e.getValue()[1] - e.getValue()[0];
            range.append(range.length() == 0 ? "" : ", ")
                    .append(e.getKey())
                    .append(' ')
                    .append(e.getValue()[0])
                    .append("..")
                    .append(e.getValue()[1]);
        }
        long batches = offsets == 0 && !initialized && !left.isEmpty() ? 1 : 0;
        // A guard against a plan that would take too long to count: it is only told.
        for (int guard = 0; guard < 1_000_000; guard++) {
            Map<TopicPartition, long[]> next = new LinkedHashMap<>();
            left.forEach((tp, r) -> next.put(tp, r.clone()));
            limit.maxOffsetsPerTrigger().ifPresent(max -> rateLimit(next, max));
            int units = 0;
            for (Map.Entry<TopicPartition, long[]> e : next.entrySet()) {
                long[] r = e.getValue();
                if (r[1] > r[0] && units < limit.maxUnits()) {
                    left.get(e.getKey())[0] = r[1];
                    units++;
                }
            }
            if (units == 0) {
                break;
            }
            batches++;
        }
        String partitions = left.size() <= 8 ? range.toString() : left.size() + " partitions";
        return Optional.of(new SourcePlan.Backlog(batches, -1, -1, offsets, partitions));
    }

    /**
     * From where to where each known partition would read now: {from, to}, sorted by topic and
     * partition.
     */
    private Map<TopicPartition, long[]> ranges(Target t) throws IOException {
        Map<TopicPartition, long[]> ranges = new LinkedHashMap<>();
        for (Map.Entry<TopicPartition, Long> e : t.end.entrySet()) {
            TopicPartition tp = e.getKey();
            long end = e.getValue();
            Long from = committed.containsKey(tp) ? committed.get(tp) : t.start.get(tp);
            if (from == null) {
                // Found after the last refresh began: the next refresh decides where it starts.
                continue;
            }
            long earliest = t.earliest.get(tp);
            if (from > end) {
                lost(
                        tp,
                        "the checkpoint is at offset "
                                + from
                                + " but the partition ends at "
                                + end
                                + ": the topic was deleted and recreated, or the offsets are beyond"
                                + " its end");
                if (!committed.containsKey(tp)) {
                    // A startingOffsets JSON beyond the end: wait until data reaches it.
                    continue;
                }
                from = earliest;
            } else if (from < earliest) {
                lost(
                        tp,
                        "offsets "
                                + from
                                + " to "
                                + (earliest - 1)
                                + " are gone (retention or deletion); the partition now starts at "
                                + earliest);
                from = earliest;
            }
            ranges.put(tp, new long[] {from, end});
        }
        return ranges;
    }

    private void lost(TopicPartition tp, String what) throws IOException {
        String message =
                "Kafka source " + options.description() + ", partition " + tp + ": " + what + ".";
        if (options.failOnDataLoss) {
            throw new IOException(
                    message
                            + " Some data may have been lost. If that is expected, run with"
                            + " failOnDataLoss false (--fail-on-data-loss=false) to go on from the"
                            + " earliest offset.");
        }
        LOG.warn("{} Going on from the earliest offset (failOnDataLoss is false).", message);
    }

    /**
     * Spark's pro-rata split of {@code limit} offsets over partitions with data
     * (KafkaMicroBatchStream.rateLimit).
     */
    static void rateLimit(Map<TopicPartition, long[]> ranges, long limit) {
        double total = 0;
        for (long[] r : ranges.values()) {
            total += r[1] - r[0];
        }
        if (total <= limit) {
            return;
        }
        for (long[] r : ranges.values()) {
            long size = r[1] - r[0];
            if (size <= 0) {
                continue;
            }
            double prorate = limit * (size / total);
            long n = (long) (prorate < 1 ? Math.ceil(prorate) : Math.floor(prorate));
            r[1] = Math.min(r[1], r[0] + n);
        }
    }

    @Override
    public synchronized boolean nextBatchIsEmpty() {
        Target t = target;
        if (t == null) {
            return true;
        }
        try {
            for (long[] r : ranges(t).values()) {
                if (r[1] > r[0] || !initialized) {
                    return false;
                }
            }
        } catch (IOException e) {
            // Lost data: the next nextBatch call fails the query with the message.
            return false;
        }
        return true;
    }

    @Override
    public synchronized void commit(List<KafkaSplit> batch) {
        for (KafkaSplit split : batch) {
            committed.put(split.topicPartition(), split.to());
        }
        Target t = target;
        if (!initialized && t != null) {
            // Pin the starting offsets of partitions that this first batch left for later.
            t.start.forEach(committed::putIfAbsent);
        }
        initialized = true;
        commits++;
    }

    /**
     * Spark's offsets JSON, {@code {"events":{"0":170,"1":160,"2":170}}}: the committed offset of
     * each partition (for partitions not committed yet, where they will start).
     */
    @Override
    public synchronized Map<String, Object> describeOffsets() {
        TreeMap<TopicPartition, Long> offsets = new TreeMap<>(ORDER);
        Target t = target;
        if (t != null) {
            offsets.putAll(t.start);
        }
        offsets.putAll(committed);
        Map<String, Object> json = new LinkedHashMap<>();
        for (Map.Entry<TopicPartition, Long> e : offsets.entrySet()) {
            @SuppressWarnings("unchecked")
            Map<String, Object> partitions =
                    (Map<String, Object>)
                            json.computeIfAbsent(
                                    e.getKey().topic(), k -> new LinkedHashMap<String, Object>());
            partitions.put(Integer.toString(e.getKey().partition()), e.getValue());
        }
        return json;
    }

    @Override
    public SimpleVersionedSerializer<KafkaSplit> splitSerializer() {
        return new KafkaSplit.Serializer();
    }
}
