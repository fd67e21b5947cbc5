package org.flinkss.runtime.operators;

import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
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

import org.flinkss.runtime.progress.RunScope;
import org.flinkss.runtime.time.Watermarks;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Spark's {@code dropDuplicatesWithinWatermark}: the first row of a key passes, later rows of the
 * key are dropped while the key is remembered. A key is remembered until the watermark reaches the
 * first row's event time plus the watermark delay; after that, a duplicate (with a newer event
 * time, since older rows are late anyway) passes again. That is Spark's documented trade-off for
 * bounded state.
 *
 * <p>Rows must come with their event time as the record timestamp, and late rows must not reach it
 * (a {@link LateRowRouter} stands before it). A row without a timestamp (a null event time) is
 * never late, and its key expires as Spark's does: Spark reads the null as 0 ({@code
 * UnsafeRow.getLong}), so it expires at the epoch plus the delay, which any watermark after the
 * first batch has passed: such a key is then forgotten at the end of its batch (at its watermark or
 * before its checkpoint barrier, whichever comes first). Run it with {@code
 * keyBy(...).transform(...)}.
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
 * <p>New keys are <em>young</em> until the next snapshot: their expiries wait on the heap (at most
 * {@link #youngLimit} of them), with their index entries, and go to RocksDB only at a snapshot (or
 * when there are too many). A young key that the watermark forgets before then never touches
 * RocksDB: no put, no delete. In an availableNow batch, whose checkpoints are few (the periodic
 * interval of such a run is 30 s, and the stop's savepoint ends it), that is most keys. A
 * checkpoint holds exactly what it held before, so its layout is unchanged.
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

    /** The holders with young keys, not yet written to their bucket's list. */
    private transient Set<Holder<K>> unwritten;

    /**
     * The young keys: remembered, but not yet in {@link #expiresAt}. Each is listed, with its
     * expiry, in its holder's {@link Holder#unwritten}, and every key there is young.
     */
    private transient Set<K> young;

    private transient int keyGroups;

    /** How many young keys may wait on the heap ({@link HeapBudget}). */
    private transient int youngLimit;

    /**
     * Keys of rows without event time whose expiry the watermark had already passed: remembered
     * until the end of their batch only, as Spark evicts them at the end of it.
     */
    private transient Set<K> untilBatchEnd;

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

        /** The bucket's young keys (with their expiries), not yet in its list; null when none. */
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
        expiresAt = getPartitionedState(DedupState.expiresAt());
        TypeSerializer<K> keys = this.<K>getKeyedStateBackend().getKeySerializer().duplicate();
        expiring =
                (InternalListState<K, Long, Tuple2<K, Long>>)
                        getOrCreateKeyedState(
                                LongSerializer.INSTANCE,
                                new ListStateDescriptor<>(
                                        DedupState.EXPIRING,
                                        new TupleSerializer<Tuple2<K, Long>>(
                                                (Class<Tuple2<K, Long>>) (Class<?>) Tuple2.class,
                                                new TypeSerializer<?>[] {
                                                    keys, LongSerializer.INSTANCE
                                                })));
        timers = getInternalTimerService("dedupe-expiry", LongSerializer.INSTANCE, this);
        keyGroups = getRuntimeContext().getTaskInfo().getMaxNumberOfParallelSubtasks();
        holders = new HashMap<>();
        unwritten = new LinkedHashSet<>();
        young = new HashSet<>();
        untilBatchEnd = new HashSet<>();
        youngLimit =
                HeapBudget.entries(getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks());
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
        @SuppressWarnings("unchecked")
        K key = (K) getCurrentKey();
        if (young.contains(key) || untilBatchEnd.contains(key) || expiresAt.value() != null) {
            return;
        }
        // Spark's dedup counts every put as an updated row; a key is put only when it is not
        // remembered, so no set of distinct keys is needed (it cost a boxed entry per row).
        metrics.appended(1);
        if (!element.hasTimestamp() || element.getTimestamp() == Long.MIN_VALUE) {
            // A row without event time (passed by LateRowRouter#keepingRowsWithoutEventTime; a
            // source record without one carries Long.MIN_VALUE): Spark reads its time as 0, so it
            // expires at the epoch plus the delay.
            long expiry = delayMillis;
            if (expiry <= Watermarks.fromFlink(timers.currentWatermark())) {
                untilBatchEnd.add(key);
            } else {
                index(key, expiry);
            }
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
        index(key, expiry);
        output.collect(element);
    }

    /**
     * Remembers the current key as young and lists it under its bucket's holder, on the heap (see
     * {@link #youngLimit}); the bucket's timer covers its expiry.
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
        young.add(key);
        if (young.size() >= youngLimit) {
            writeYoungKeys();
        }
    }

    /**
     * Writes the young keys to RocksDB: each key's expiry, and its bucket's list (one merge per
     * bucket).
     */
    private void writeYoungKeys() throws Exception {
        if (young.isEmpty()) {
            return;
        }
        Object current = getCurrentKey();
        for (Holder<K> holder : unwritten) {
            setCurrentKey(holder.key);
            expiring.setCurrentNamespace(holder.bucket);
            expiring.addAll(holder.unwritten);
            for (Tuple2<K, Long> entry : holder.unwritten) {
                setCurrentKey(entry.f0);
                expiresAt.update(entry.f1);
            }
            holder.unwritten = null;
        }
        unwritten.clear();
        young.clear();
        if (current != null) {
            setCurrentKey(current);
        }
    }

    /** Sets {@link #youngLimit}, for a test that fills it. */
    @VisibleForTesting
    void limitYoungKeys(int limit) {
        youngLimit = limit;
    }

    /** The young keys and their expiries (remembered, not yet in keyed state). */
    @VisibleForTesting
    Map<K, Long> youngKeys() {
        Map<K, Long> keys = new HashMap<>();
        for (Holder<K> holder : unwritten) {
            holder.unwritten.forEach(entry -> keys.put(entry.f0, entry.f1));
        }
        return keys;
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        // A batch's watermark comes after all of its rows: the batch has ended.
        forgetAtBatchEnd();
        super.processWatermark(mark);
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        // Every batch ends with a checkpoint, after all of its rows.
        forgetAtBatchEnd();
        super.prepareSnapshotPreBarrier(checkpointId);
    }

    private void forgetAtBatchEnd() {
        metrics.removed(untilBatchEnd.size());
        untilBatchEnd.clear();
    }

    @Override
    public void finish() throws Exception {
        writeYoungKeys();
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
        int forgottenYoung = 0;
        if (holds && holder.unwritten != null) {
            // The bucket's young keys: forgetting one is only dropping it from the heap.
            List<Tuple2<K, Long>> stillYoung = new ArrayList<>();
            for (Tuple2<K, Long> entry : holder.unwritten) {
                if (entry.f1 <= watermark) {
                    young.remove(entry.f0);
                    forgottenYoung++;
                } else {
                    stillYoung.add(entry);
                    next = Math.min(next, entry.f1);
                }
            }
            if (stillYoung.isEmpty()) {
                holder.unwritten = null;
                unwritten.remove(holder);
            } else {
                holder.unwritten = stillYoung;
            }
        }
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
        metrics.removed(forgotten.size() + forgottenYoung);
        setCurrentKey(holderKey);
    }

    @Override
    public void onProcessingTime(InternalTimer<K, Long> timer) {}

    private int keyGroupOf(K key) {
        return KeyGroupRangeAssignment.assignToKeyGroup(key, keyGroups);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        // Keyed state is snapshotted after this method: the young keys go into this snapshot.
        writeYoungKeys();
        super.snapshotState(context);
        metrics.snapshot(context, getRuntimeContext());
    }
}
