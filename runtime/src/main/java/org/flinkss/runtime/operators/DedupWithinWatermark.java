package org.flinkss.runtime.operators;

import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.typeutils.runtime.TupleSerializer;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.internal.InternalListState;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

import org.flinkss.runtime.checkpoint.RunScope;
import org.flinkss.runtime.time.Watermarks;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Spark's {@code dropDuplicatesWithinWatermark}: the first row of a key passes, later rows of the
 * key are dropped while the key is remembered. A key is remembered until the watermark reaches the
 * first row's event time plus the watermark delay; after that, a duplicate (with a newer event
 * time, since older rows are late anyway) passes again. That is Spark's documented trade-off for
 * bounded state.
 *
 * <p>Rows must come with their event time as the record timestamp, and late rows must not reach it
 * (a {@link LateRowRouter} stands before it). A row without a timestamp (a null event time) is kept
 * and its key never forgotten, as in Spark. Run it with {@code keyBy(...).transform(...)}.
 *
 * <p>State: per key, when it may be forgotten ({@code expires-at}). Forgetting is driven by an
 * expiry index instead of a timer per key (a million heap timers were copied into every
 * checkpoint): the keys of one key group whose expiry falls in the same time bucket are listed
 * together ({@code expiring}, a list of keys and their expiries) under one of them, the bucket's
 * <em>holder</em>, which has the bucket's only timer. The timer is set at the earliest expiry in
 * the bucket; when it fires, every listed key whose expiry the watermark has reached is forgotten,
 * and the timer is set again at the earliest expiry left. So a key is forgotten at exactly the
 * watermark Spark forgets it at, whatever the bucket width; the width only sets how many keys share
 * a timer and how many keys a firing in the middle of a bucket reads. Everything is keyed state and
 * timers of the key group, so a restore and a change of parallelism carry it along.
 *
 * @param <K> the key rows are deduplicated on
 * @param <T> the rows
 */
public final class DedupWithinWatermark<K, T> extends AbstractStreamOperator<T>
        implements OneInputStreamOperator<T, T>, Triggerable<K, Long> {

    private static final long serialVersionUID = 1L;

    private final long delayMillis;
    private final long bucketMillis;
    @Nullable private final LateRowRouter.EventTime<T> micros;
    private final StateMetrics metrics;

    private transient ValueState<Long> expiresAt;

    /**
     * Under a bucket's holder, namespace the bucket: the bucket's keys and their expiries. A list,
     * not a map: adding is RocksDB's merge (no read), a firing reads it with one point lookup (a
     * map's iterator seeks, slow over the tombstones of forgotten keys).
     */
    private transient InternalListState<K, Long, Tuple2<K, Long>> expiring;

    private transient InternalTimerService<Long> timers;

    /** The holder of each (key group, bucket) and its earliest timer, rebuilt from the timers. */
    private transient Map<Slot, Holder<K>> holders;

    /** The holders with keys not yet written to their bucket's list. */
    private transient List<Holder<K>> unwritten;

    /** How many keys wait in {@link #unwritten}'s holders. */
    private transient int waiting;

    private transient int keyGroups;

    /**
     * How many indexed keys may wait on the heap before they are written to their buckets' lists:
     * one RocksDB merge per bucket and batch of keys instead of one per key (and no switch of the
     * current key per row); they are written before every watermark (so a firing bucket lists all
     * its keys) and every snapshot, so state and timers always agree in a checkpoint.
     */
    static final int MAX_WAITING = 1 << 16;

    /** A key group's bucket. Equality by hand: a record's generated one is slow until C2. */
    private static final class Slot {
        final int keyGroup;
        final long bucket;

        Slot(int keyGroup, long bucket) {
            this.keyGroup = keyGroup;
            this.bucket = bucket;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Slot other && other.keyGroup == keyGroup && other.bucket == bucket;
        }

        @Override
        public int hashCode() {
            return 31 * keyGroup + Long.hashCode(bucket);
        }
    }

    private static final class Holder<K> {
        final K key;
        final long bucket;
        long timer;

        /** Keys of the bucket (with their expiries) not yet in its list; null when none. */
        @Nullable List<Tuple2<K, Long>> unwritten;

        Holder(K key, long bucket, long timer) {
            this.key = key;
            this.bucket = bucket;
            this.timer = timer;
        }
    }

    /**
     * @param operatorName the operator as progress names it (Spark's is {@code
     *     dedupeWithinWatermark}...)
     * @param delayMillis the watermark delay of the query: how long a key is remembered
     * @param bucketMillis the width of the expiry buckets whose keys share one timer per key group
     */
    public DedupWithinWatermark(
            String operatorName, long delayMillis, long bucketMillis, RunScope scope) {
        this(operatorName, delayMillis, bucketMillis, scope, null);
    }

    /**
     * As {@link #DedupWithinWatermark(String, long, long, RunScope)}, with each row's event time in
     * microseconds, for Spark's expiry to the microsecond: a key expires once {@code watermark *
     * 1000 >= event_time + delay}, so a row with microseconds past its millisecond is remembered
     * one watermark millisecond longer than its record timestamp (floored to ms) would say.
     *
     * @param micros the row's event time in epoch microseconds (null: its record timestamp)
     */
    public DedupWithinWatermark(
            String operatorName,
            long delayMillis,
            long bucketMillis,
            RunScope scope,
            @Nullable LateRowRouter.EventTime<T> micros) {
        if (bucketMillis <= 0) {
            throw new IllegalArgumentException(
                    "dedup expiry buckets must be positive, not " + bucketMillis + " ms");
        }
        this.delayMillis = delayMillis;
        this.bucketMillis = bucketMillis;
        this.micros = micros;
        this.metrics = new StateMetrics(operatorName, scope);
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        metrics.initialize(context);
    }

    @Override
    @SuppressWarnings("unchecked")
    public void open() throws Exception {
        super.open();
        expiresAt = getPartitionedState(new ValueStateDescriptor<>("expires-at", Types.LONG));
        TypeSerializer<K> keys = this.<K>getKeyedStateBackend().getKeySerializer().duplicate();
        expiring =
                (InternalListState<K, Long, Tuple2<K, Long>>)
                        getOrCreateKeyedState(
                                LongSerializer.INSTANCE,
                                new ListStateDescriptor<>(
                                        "expiring",
                                        new TupleSerializer<Tuple2<K, Long>>(
                                                (Class<Tuple2<K, Long>>) (Class<?>) Tuple2.class,
                                                new TypeSerializer<?>[] {
                                                    keys, LongSerializer.INSTANCE
                                                })));
        timers = getInternalTimerService("dedupe-expiry", LongSerializer.INSTANCE, this);
        keyGroups = getRuntimeContext().getTaskInfo().getMaxNumberOfParallelSubtasks();
        holders = new HashMap<>();
        unwritten = new ArrayList<>();
        waiting = 0;
        // After a restore (or a rescale) the timers say which key holds which bucket.
        timers.forEachEventTimeTimer(
                (bucket, timestamp) -> {
                    @SuppressWarnings("unchecked")
                    K key = (K) getCurrentKey();
                    Slot slot = new Slot(keyGroupOf(key), bucket);
                    Holder<K> holder = holders.get(slot);
                    if (holder == null || timestamp < holder.timer) {
                        holders.put(slot, new Holder<>(key, bucket, timestamp));
                    }
                });
    }

    @Override
    public void processElement(StreamRecord<T> element) throws Exception {
        if (expiresAt.value() != null) {
            return;
        }
        @SuppressWarnings("unchecked")
        K key = (K) getCurrentKey();
        // Spark's dedup counts every put as an updated row; a key is put only when it is not
        // remembered, so no set of distinct keys is needed (it cost a boxed entry per row).
        metrics.appended(1);
        if (!element.hasTimestamp() || element.getTimestamp() == Long.MIN_VALUE) {
            // A row without event time (passed by LateRowRouter#keepingRowsWithoutEventTime; a
            // source record without one carries Long.MIN_VALUE): Spark's expiry is null, never
            // reached, so the key is never forgotten.
            expiresAt.update(Long.MAX_VALUE);
            output.collect(element);
            return;
        }
        // Spark forgets when watermark (ms) * 1000 >= event time (us) + delay: the expiry is the
        // event time rounded up to the ms, plus the delay.
        Long eventMicros = micros == null ? null : micros.of(element.getValue());
        long expiry =
                (eventMicros == null
                                ? element.getTimestamp()
                                : Math.floorDiv(eventMicros, 1000)
                                        + (Math.floorMod(eventMicros, 1000) != 0 ? 1 : 0))
                        + delayMillis;
        expiresAt.update(expiry);
        index(key, expiry);
        output.collect(element);
    }

    /**
     * Lists the current key under its bucket's holder (on the heap first, see {@link
     * #MAX_WAITING}); the bucket's timer covers its expiry.
     */
    private void index(K key, long expiry) throws Exception {
        long bucket = Math.floorDiv(expiry, bucketMillis);
        // Spark forgets when watermark >= expiry; Flink's watermark is Spark's minus one.
        long timer = expiry - 1;
        Slot slot = new Slot(keyGroupOf(key), bucket);
        Holder<K> holder = holders.get(slot);
        if (holder == null) {
            holder = new Holder<>(key, bucket, timer);
            holders.put(slot, holder);
            timers.registerEventTimeTimer(bucket, timer);
        } else if (timer < holder.timer) {
            // The timer belongs to the holder's key, not the current one.
            setCurrentKey(holder.key);
            timers.registerEventTimeTimer(bucket, timer);
            holder.timer = timer;
            setCurrentKey(key);
        }
        if (holder.unwritten == null) {
            holder.unwritten = new ArrayList<>();
            unwritten.add(holder);
        }
        holder.unwritten.add(Tuple2.of(key, expiry));
        if (++waiting >= MAX_WAITING) {
            writeWaitingKeys();
        }
    }

    /** Writes the keys waiting on the heap to their buckets' lists, one merge per bucket. */
    private void writeWaitingKeys() throws Exception {
        if (waiting == 0) {
            return;
        }
        Object current = getCurrentKey();
        for (Holder<K> holder : unwritten) {
            setCurrentKey(holder.key);
            expiring.setCurrentNamespace(holder.bucket);
            expiring.addAll(holder.unwritten);
            holder.unwritten = null;
        }
        unwritten.clear();
        waiting = 0;
        if (current != null) {
            setCurrentKey(current);
        }
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        // A bucket whose timer fires must list all its keys.
        writeWaitingKeys();
        super.processWatermark(mark);
    }

    @Override
    public void finish() throws Exception {
        writeWaitingKeys();
        super.finish();
    }

    @Override
    public void onEventTime(InternalTimer<K, Long> timer) throws Exception {
        K holderKey = timer.getKey();
        long bucket = timer.getNamespace();
        long watermark = Watermarks.fromFlink(timers.currentWatermark());
        expiring.setCurrentNamespace(bucket);
        List<K> forgotten = new ArrayList<>();
        List<Tuple2<K, Long>> left = new ArrayList<>();
        long next = Long.MAX_VALUE;
        Iterable<Tuple2<K, Long>> listed = expiring.get();
        if (listed != null) {
            for (Tuple2<K, Long> entry : listed) {
                if (entry.f1 <= watermark) {
                    forgotten.add(entry.f0);
                } else {
                    left.add(entry);
                    next = Math.min(next, entry.f1);
                }
            }
        }
        if (left.isEmpty()) {
            expiring.clear();
        } else if (!forgotten.isEmpty()) {
            expiring.update(left);
        }
        Slot slot = new Slot(keyGroupOf(holderKey), bucket);
        Holder<K> holder = holders.get(slot);
        boolean holds = holder != null && holder.key.equals(holderKey);
        if (next != Long.MAX_VALUE) {
            timers.registerEventTimeTimer(bucket, next - 1);
            if (holds) {
                holder.timer = next - 1;
            }
        } else if (holds) {
            holders.remove(slot);
        }
        for (K key : forgotten) {
            setCurrentKey(key);
            expiresAt.clear();
        }
        metrics.removed(forgotten.size());
        setCurrentKey(holderKey);
    }

    @Override
    public void onProcessingTime(InternalTimer<K, Long> timer) {}

    private int keyGroupOf(K key) {
        return KeyGroupRangeAssignment.assignToKeyGroup(key, keyGroups);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        // Keyed state is snapshotted after this method: the waiting keys go into this snapshot.
        writeWaitingKeys();
        super.snapshotState(context);
        metrics.snapshot(context, getRuntimeContext());
    }
}
