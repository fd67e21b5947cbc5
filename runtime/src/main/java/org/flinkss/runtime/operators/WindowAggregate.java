package org.flinkss.runtime.operators;

import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyContext;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.api.windowing.assigners.MergingWindowAssigner;
import org.apache.flink.streaming.api.windowing.assigners.WindowAssigner;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;

import org.flinkss.runtime.progress.RunScope;
import org.flinkss.runtime.time.Watermarks;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;

/**
 * An event-time window aggregation, as Spark's {@code groupBy(window(...), key)}: Flink's window
 * assigners say which windows a row belongs to (tumbling, sliding, or sessions, which merge when
 * they touch), an {@link AggregateFunction} accumulates. What it writes is its {@link
 * WindowEmission}, which the query's output mode chooses.
 *
 * <p>It keeps its windows in keyed {@link MapState} (RocksDB) by window start, so that it can
 * report Spark's state metrics exactly: {@code numRowsTotal} is the number of (key, window) rows
 * held, {@code numRowsUpdated} those changed since the last commit. Late rows never reach it: a
 * {@code LateRowRouter} stands before it; a row late for some of its windows only (sliding) is
 * added to the others, as in Spark.
 *
 * <p>Rows must come with their event time as the record timestamp. Sessions are Spark's to the
 * microsecond: a row opens {@code [t, t + gap)} at its event time in microseconds (from the {@link
 * LateRowRouter.EventTime} given, else its record timestamp), sessions merge when one starts at or
 * before the other's end, and a session's start, end and state are in microseconds. Spark writes a
 * session once {@code end <= watermark_ms * 1000}: a key has one timer, at the last millisecond
 * before its first session's end (rounded up to a millisecond). Sessions are worked on the heap
 * ({@link OpenSessions}) and written to the {@code windows} state at each snapshot, so that a row
 * costs no RocksDB access (run in {@link Operator}). Fixed windows are whole milliseconds and kept
 * in ms.
 *
 * @param <K> the grouping key
 * @param <IN> the rows
 * @param <A> the accumulator
 */
public final class WindowAggregate<K, IN, A extends WindowAggregate.Ended>
        extends KeyedProcessFunction<K, IN, RowData> implements CheckpointedFunction {

    private static final long serialVersionUID = 1L;

    /**
     * An accumulator that knows its window's end (sessions grow): epoch milliseconds for fixed
     * windows, microseconds for sessions.
     */
    public interface Ended extends Serializable {
        long end();

        void end(long end);
    }

    /** Makes the output row of a closed window. */
    @FunctionalInterface
    public interface Emitter<K, A> extends Serializable {
        /**
         * @param windowStartMicros the window's start, epoch microseconds
         * @param windowEndMicros the window's end (exclusive), epoch microseconds
         */
        RowData row(long windowStartMicros, long windowEndMicros, K key, A accumulator);
    }

    private static final long MICROS_PER_MILLI = 1000;

    private final String operatorName;
    private final WindowAssigner<Object, TimeWindow> assigner;
    private final AggregateFunction<IN, A, A> aggregate;
    private final Class<A> accumulatorClass;
    private final Emitter<K, A> emitter;
    private final StateMetrics metrics;
    private final WindowEmission emission;
    @Nullable private final LateRowRouter.EventTime<IN> micros;

    /** Its rows are {@link WindowPartial}s of a {@link WindowCombiner}, each in its own window. */
    private final boolean partials;

    /** Windows by start: epoch ms for fixed windows, epoch us for sessions. */
    private transient MapState<Long, A> windows;

    /**
     * Sessions only: the open sessions of the keys touched, on the heap in front of {@link
     * #windows}.
     */
    private transient OpenSessions<K, A> sessions;

    /** Sets the current key when {@link #sessions} are written ({@link Operator} gives itself). */
    private transient KeyContext keys;

    /**
     * The newest watermark this operator has been sent ({@link Operator} tells it), kept in union
     * operator state: after a restore, the first rows of a run may reach a keyed operator before
     * every input channel has sent the restored watermark again, so its current watermark alone
     * would say that no window has ended.
     */
    private transient ListState<Long> watermarkState;

    private transient long knownWatermark = Watermarks.NONE;

    private transient WindowAssigner.WindowAssignerContext assignerContext;
    private transient long windowSize;

    /**
     * Fixed windows: each key's timer, at its earliest open window's last millisecond. A key has
     * one timer, not one per window: when it fires, one pass over the key's windows writes every
     * window the watermark has ended and sets the timer again at the earliest one left. (A timer
     * per window cost a heap queue operation for every window closed; when a batch's watermark
     * closes tens of thousands at once that was a third of the firing.) Not checkpointed: the
     * timers are, and {@link Operator} rebuilds this from them after a restore.
     */
    private transient Map<K, Firing> firings;

    /** A key's timer and the watermark its windows were last gone through at. */
    private static final class Firing {
        long timer;
        long passedAt = Long.MIN_VALUE;

        Firing(long timer) {
            this.timer = timer;
        }
    }

    /**
     * One window aggregation, before it is told which rows reach it: {@link #overRows} for the rows
     * themselves, {@link #overPartials} for a {@link WindowCombiner}'s partials. Both make the same
     * state, timers, output and metrics.
     *
     * @param <K> the key
     * @param <IN> the rows
     * @param <A> the accumulator, also the result
     */
    public static final class Spec<K, IN, A extends Ended> {
        private final String operatorName;
        private final WindowAssigner<?, TimeWindow> assigner;
        private final AggregateFunction<IN, A, A> aggregate;
        private final Class<A> accumulatorClass;
        private final Emitter<K, A> emitter;
        private final WindowEmission emission;
        private final RunScope scope;

        public Spec(
                String operatorName,
                WindowAssigner<?, TimeWindow> assigner,
                AggregateFunction<IN, A, A> aggregate,
                Class<A> accumulatorClass,
                Emitter<K, A> emitter,
                WindowEmission emission,
                RunScope scope) {
            this.operatorName = operatorName;
            this.assigner = assigner;
            this.aggregate = aggregate;
            this.accumulatorClass = accumulatorClass;
            this.emitter = emitter;
            this.emission = emission;
            this.scope = scope;
        }

        /** Over the rows, each in the windows of its record timestamp. */
        public WindowAggregate<K, IN, A> overRows() {
            return overRows(null);
        }

        /**
         * Over the rows, with each row's event time in microseconds for sessions (Spark's {@code
         * TIMESTAMP}); fixed windows do not need it.
         *
         * @param micros the row's event time in epoch microseconds (null: its record timestamp)
         */
        public WindowAggregate<K, IN, A> overRows(@Nullable LateRowRouter.EventTime<IN> micros) {
            return new WindowAggregate<>(this, aggregate, micros, false);
        }

        /**
         * The keyed half of a two-phase aggregation: merges the {@link WindowPartial}s of a {@link
         * WindowCombiner} that stands before the shuffle, with {@code aggregate}'s {@code merge}.
         * Its state, timers, output and metrics are those of the same aggregation over the rows
         * (state rows are (key, window) pairs either way), so a checkpoint of one restores into the
         * other. Fixed windows only.
         */
        public WindowAggregate<K, WindowPartial<K, A>, A> overPartials() {
            if (assigner instanceof MergingWindowAssigner) {
                throw new IllegalArgumentException(
                        "sessions merge: their rows cannot be combined before the shuffle");
            }
            return new WindowAggregate<>(this, new MergePartials<K, A>(aggregate), null, true);
        }
    }

    /** Adds a partial to an accumulator by merging the two. */
    private static final class MergePartials<K, A extends Ended>
            implements AggregateFunction<WindowPartial<K, A>, A, A> {
        private static final long serialVersionUID = 1L;
        private final AggregateFunction<?, A, A> aggregate;

        MergePartials(AggregateFunction<?, A, A> aggregate) {
            this.aggregate = aggregate;
        }

        @Override
        public A createAccumulator() {
            return aggregate.createAccumulator();
        }

        @Override
        public A add(WindowPartial<K, A> partial, A acc) {
            return aggregate.merge(acc, partial.accumulator);
        }

        @Override
        public A getResult(A acc) {
            return acc;
        }

        @Override
        public A merge(A a, A b) {
            return aggregate.merge(a, b);
        }
    }

    @SuppressWarnings("unchecked")
    private WindowAggregate(
            Spec<K, ?, A> spec,
            AggregateFunction<IN, A, A> aggregate,
            @Nullable LateRowRouter.EventTime<IN> micros,
            boolean partials) {
        if (spec.emission == WindowEmission.CHANGES
                && spec.assigner instanceof MergingWindowAssigner) {
            throw new IllegalArgumentException(
                    "session windows in update mode: a merged session's old row would stay (Spark "
                            + "refuses it too); use append or complete");
        }
        this.emission = spec.emission;
        this.operatorName = spec.operatorName;
        this.assigner = (WindowAssigner<Object, TimeWindow>) spec.assigner;
        this.aggregate = aggregate;
        this.accumulatorClass = spec.accumulatorClass;
        this.emitter = spec.emitter;
        this.metrics = new StateMetrics(spec.operatorName, spec.scope);
        this.micros = micros;
        this.partials = partials;
    }

    @Override
    public void open(OpenContext openContext) {
        windows = getRuntimeContext().getMapState(WindowAggregateState.windows(accumulatorClass));
        windowSize = -1;
        firings = new HashMap<>();
        if (assigner instanceof MergingWindowAssigner) {
            if (keys == null) {
                throw new IllegalStateException(
                        operatorName
                                + ": session windows run in WindowAggregate.Operator"
                                + " (transform(...)), which writes their sessions to the keyed"
                                + " state at each snapshot; not in process(...)");
            }
            sessions =
                    new OpenSessions<>(
                            windows,
                            getRuntimeContext().getMapState(WindowAggregateState.sessionIndex()),
                            HeapBudget.entries(
                                    getRuntimeContext()
                                            .getTaskInfo()
                                            .getNumberOfParallelSubtasks()));
        }
    }

    @Override
    public void processElement(IN event, Context ctx, Collector<RowData> out) throws Exception {
        long timestamp = ctx.timestamp();
        Collection<TimeWindow> assigned;
        if (partials) {
            WindowPartial<?, ?> partial = (WindowPartial<?, ?>) event;
            assigned = List.of(new TimeWindow(partial.start, partial.accumulator.end()));
        } else {
            assigned = assigner.assignWindows(event, timestamp, assignerContext());
        }
        if (assigner instanceof MergingWindowAssigner) {
            Long eventMicros = micros == null ? null : micros.of(event);
            long t = eventMicros == null ? timestamp * MICROS_PER_MILLI : eventMicros;
            for (TimeWindow window : assigned) {
                long gap = (window.getEnd() - window.getStart()) * MICROS_PER_MILLI;
                addToSession(t, t + gap, event, ctx, out);
            }
            if (sessions.full()) {
                sessions.writeAndDrop(keys);
            }
            return;
        }
        long watermark =
                Math.max(
                        Watermarks.fromFlink(ctx.timerService().currentWatermark()),
                        knownWatermark);
        for (TimeWindow window : assigned) {
            if (emission != WindowEmission.ALL && Watermarks.isLate(window.getEnd(), watermark)) {
                // Spark drops the row from each window that has ended (end <= watermark) and
                // keeps it in the others (a sliding window's later ones).
                continue;
            }
            A acc = windows.get(window.getStart());
            if (acc == null) {
                acc = aggregate.createAccumulator();
                acc.end(window.getEnd());
                metrics.added(1);
                // A fixed window's end never moves: its key's timer covers it from now on (a
                // restore brings both back).
                if (emission != WindowEmission.ALL) {
                    fireBy(ctx.getCurrentKey(), window.maxTimestamp(), ctx.timerService());
                }
            }
            acc = aggregate.add(event, acc);
            windows.put(window.getStart(), acc);
            metrics.updated(ctx.getCurrentKey(), window.getStart());
            if (emission != WindowEmission.FINAL) {
                out.collect(
                        emitter.row(
                                window.getStart() * MICROS_PER_MILLI,
                                window.getEnd() * MICROS_PER_MILLI,
                                ctx.getCurrentKey(),
                                acc));
            }
        }
    }

    /**
     * Sessions: the new row's window swallows every session it touches (Spark merges at equality
     * too). A key's sessions never touch each other and each is at least a gap long, so at most two
     * touch a row's window: the last one starting at or before its end, and the one before that.
     * They are merged in the order of their starts. All in microseconds.
     */
    private void addToSession(long start, long end, IN event, Context ctx, Collector<RowData> out)
            throws Exception {
        K key = ctx.getCurrentKey();
        NavigableMap<Long, OpenSessions.Held<A>> open = sessions.of(key);
        A merged = aggregate.add(event, aggregate.createAccumulator());
        List<Map.Entry<Long, OpenSessions.Held<A>>> swallowed = new ArrayList<>(2);
        for (Map.Entry<Long, OpenSessions.Held<A>> s = open.floorEntry(end);
                s != null && s.getValue().session.end() >= start;
                s = open.lowerEntry(s.getKey())) {
            swallowed.add(0, s);
        }
        for (Map.Entry<Long, OpenSessions.Held<A>> s : swallowed) {
            merged = aggregate.merge(merged, s.getValue().session);
            start = Math.min(start, s.getKey());
            end = Math.max(end, s.getValue().session.end());
        }
        for (Map.Entry<Long, OpenSessions.Held<A>> s : swallowed) {
            sessions.remove(key, s.getKey());
            if (emission == WindowEmission.ALL) {
                A old = s.getValue().session;
                RowData gone = emitter.row(s.getKey(), old.end(), key, old);
                gone.setRowKind(RowKind.DELETE);
                out.collect(gone);
            }
        }
        metrics.added(1 - swallowed.size());
        merged.end(end);
        sessions.put(key, start, merged);
        metrics.updated(key, start);
        if (emission == WindowEmission.ALL) {
            out.collect(emitter.row(start, end, key, merged));
        } else {
            // One timer per key, at its earliest session's end (sessions never touch, so the
            // first by start ends first) or before.
            fireBy(key, timerFor(open.firstEntry().getValue().session.end()), ctx.timerService());
        }
    }

    /**
     * The Flink timer of a session ending at {@code endMicros}: it fires once Spark's watermark
     * (ms) is at least the end rounded up to a millisecond, that is once {@code end <= watermark *
     * 1000}.
     */
    static long timerFor(long endMicros) {
        return -Math.floorDiv(-endMicros, MICROS_PER_MILLI) - 1;
    }

    /**
     * Sessions: writes and forgets the key's sessions that the watermark has ended (the first ones
     * by start), and sets the key's timer at the end of the first one left. A timer the key no
     * longer needs (set before a session grew, or one per row in a checkpoint of an older version)
     * finds nothing ended.
     */
    private void closeEndedSessions(OnTimerContext ctx, Collector<RowData> out) throws Exception {
        K key = ctx.getCurrentKey();
        long watermark = ctx.timerService().currentWatermark();
        NavigableMap<Long, OpenSessions.Held<A>> open = sessions.of(key);
        Map.Entry<Long, OpenSessions.Held<A>> first;
        while ((first = open.firstEntry()) != null
                && timerFor(first.getValue().session.end()) <= watermark) {
            A session = first.getValue().session;
            out.collect(emitter.row(first.getKey(), session.end(), key, session));
            sessions.remove(key, first.getKey());
            metrics.removed(1);
        }
        Firing firing = firings.get(key);
        if (first == null) {
            firings.remove(key);
            return;
        }
        long next = timerFor(first.getValue().session.end());
        if (firing == null || firing.timer <= watermark || next < firing.timer) {
            ctx.timerService().registerEventTimeTimer(next);
            if (firing == null) {
                firings.put(key, new Firing(next));
            } else {
                firing.timer = next;
            }
        }
    }

    /** Makes sure the key's timer fires by {@code timestamp} (a window's last millisecond). */
    private void fireBy(K key, long timestamp, TimerService timers) {
        if (lowerTimer(key, timestamp)) {
            timers.registerEventTimeTimer(timestamp);
        }
    }

    /** A timer of the key's, restored from a checkpoint ({@link Operator} tells it). */
    void timerRestored(K key, long timestamp) {
        lowerTimer(key, timestamp);
    }

    /** Records a timer of the key's at {@code timestamp}: whether it is now the key's earliest. */
    private boolean lowerTimer(K key, long timestamp) {
        Firing firing = firings.get(key);
        if (firing == null) {
            firings.put(key, new Firing(timestamp));
            return true;
        }
        if (timestamp < firing.timer) {
            firing.timer = timestamp;
            return true;
        }
        return false;
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<RowData> out)
            throws Exception {
        if (!(assigner instanceof MergingWindowAssigner)) {
            closeEndedWindows(timestamp, ctx, out);
            return;
        }
        closeEndedSessions(ctx, out);
    }

    /**
     * Fixed windows: writes (in append mode) and forgets every window of the current key that the
     * watermark has ended, in one pass over its windows, and sets the key's timer at the earliest
     * window left. A window's timer is at its last millisecond (end - 1): with the watermark
     * mapping that is Spark's end <= watermark. A timer the key no longer needs (set before an
     * earlier window came, or one per window in a checkpoint of an older version) finds nothing new
     * at a watermark its windows were already gone through at, and does not go through them again.
     */
    private void closeEndedWindows(long timer, OnTimerContext ctx, Collector<RowData> out)
            throws Exception {
        K key = ctx.getCurrentKey();
        long watermark = ctx.timerService().currentWatermark();
        Firing firing = firings.get(key);
        if (firing != null && firing.passedAt == watermark) {
            return;
        }
        long size = sizeOf(timer);
        long next = Long.MAX_VALUE;
        Iterator<Map.Entry<Long, A>> open = windows.iterator();
        while (open.hasNext()) {
            Map.Entry<Long, A> window = open.next();
            long start = window.getKey();
            long last = start + size - 1;
            if (last > watermark) {
                next = Math.min(next, last);
                continue;
            }
            if (emission == WindowEmission.FINAL) {
                A acc = window.getValue();
                out.collect(
                        emitter.row(
                                start * MICROS_PER_MILLI, acc.end() * MICROS_PER_MILLI, key, acc));
            }
            open.remove();
            metrics.removed(1);
        }
        if (next == Long.MAX_VALUE) {
            firings.remove(key);
            return;
        }
        if (firing == null) {
            firing = new Firing(next);
            firings.put(key, firing);
        }
        firing.timer = next;
        firing.passedAt = watermark;
        ctx.timerService().registerEventTimeTimer(next);
    }

    /** The size of the (fixed-size) windows, from the assigner. */
    private long sizeOf(long timestamp) {
        if (windowSize < 0) {
            TimeWindow any =
                    assigner.assignWindows(null, timestamp, assignerContext()).iterator().next();
            windowSize = any.getEnd() - any.getStart();
        }
        return windowSize;
    }

    private WindowAssigner.WindowAssignerContext assignerContext() {
        if (assignerContext == null) {
            assignerContext =
                    new WindowAssigner.WindowAssignerContext() {
                        @Override
                        public long getCurrentProcessingTime() {
                            return System.currentTimeMillis();
                        }
                    };
        }
        return assignerContext;
    }

    /** Spark's watermark {@code sparkWatermark} reached the operator. */
    void watermarkArrived(long sparkWatermark) {
        knownWatermark = Math.max(knownWatermark, sparkWatermark);
    }

    /** Sets how many sessions a subtask holds on the heap, for a test that fills it. */
    @VisibleForTesting
    void limitHeldSessions(int limit) {
        sessions.limit(limit);
    }

    /** Sessions: writes what changed in them to the keyed state (before it is snapshotted). */
    void writeSessions() throws Exception {
        if (sessions != null) {
            sessions.write(keys);
        }
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        metrics.snapshot(context, getRuntimeContext());
        watermarkState.update(List.of(knownWatermark));
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        metrics.initialize(context);
        watermarkState =
                context.getOperatorStateStore()
                        .getUnionListState(
                                new ListStateDescriptor<>(operatorName + "-watermark", Types.LONG));
        knownWatermark = Watermarks.NONE;
        for (Long w : watermarkState.get()) {
            knownWatermark = Math.max(knownWatermark, w);
        }
    }

    /**
     * The operator to run a {@link WindowAggregate} in ({@code transform(...)}, not {@code
     * process(...)}): it tells the function every watermark it receives, which a process function
     * cannot see, so that the watermark survives a restore.
     */
    public static final class Operator<K, IN, A extends Ended>
            extends KeyedProcessOperator<K, IN, RowData> {

        private static final long serialVersionUID = 1L;

        public Operator(WindowAggregate<K, IN, A> function) {
            super(function);
        }

        @Override
        @SuppressWarnings("unchecked")
        public void open() throws Exception {
            ((WindowAggregate<K, IN, A>) userFunction).keys = this;
            super.open();
            // The timer service KeyedProcessOperator made: the function learns each key's timer.
            WindowAggregate<K, IN, A> function = (WindowAggregate<K, IN, A>) userFunction;
            getInternalTimerService("user-timers", VoidNamespaceSerializer.INSTANCE, this)
                    .forEachEventTimeTimer(
                            (namespace, timestamp) ->
                                    function.timerRestored((K) getCurrentKey(), timestamp));
        }

        @Override
        public void snapshotState(StateSnapshotContext context) throws Exception {
            // The keyed state is snapshotted after this method: the sessions go into it.
            ((WindowAggregate<?, ?, ?>) userFunction).writeSessions();
            super.snapshotState(context);
        }

        @Override
        public void finish() throws Exception {
            ((WindowAggregate<?, ?, ?>) userFunction).writeSessions();
            super.finish();
        }

        @Override
        public void processWatermark(Watermark mark) throws Exception {
            ((WindowAggregate<?, ?, ?>) userFunction)
                    .watermarkArrived(Watermarks.fromFlink(mark.getTimestamp()));
            super.processWatermark(mark);
        }
    }
}
