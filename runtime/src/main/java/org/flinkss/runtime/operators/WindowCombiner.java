package org.flinkss.runtime.operators;

import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.api.windowing.assigners.MergingWindowAssigner;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.WindowAssigner;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

import org.flinkss.runtime.time.Watermarks;

import javax.annotation.Nullable;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Partial aggregation before the shuffle, as Spark's partial {@code HashAggregate} before its
 * exchange: folds the rows of each (key, fixed window) into an accumulator on the heap and sends
 * {@link WindowPartial}s to the keyed {@link WindowAggregate} (made by {@link
 * WindowAggregate.Spec#overPartials}), which merges them. One row per (key, window) crosses the
 * network and touches the state backend instead of one per input row.
 *
 * <p>Nothing stays on the heap across a watermark, a checkpoint or the end of the input: it sends
 * every partial before it forwards a watermark (so the windows it closes are complete downstream),
 * before a checkpoint barrier (so it has no state of its own and a checkpoint loses nothing), at
 * the end of the input, and whenever it holds {@code maxEntries} partials (memory stays bounded
 * with many keys). Windows of a row that have ended by the watermark in force (Spark's {@code
 * window_end <= watermark}) are skipped, as the keyed operator skips them, unless the emission
 * keeps every window ({@link WindowEmission#ALL}). Fixed windows only: sessions merge, and stay on
 * the row path.
 *
 * @param <K> the grouping key
 * @param <IN> the rows (their event time as the record timestamp)
 * @param <A> the accumulator
 */
public final class WindowCombiner<K, IN, A extends WindowAggregate.Ended>
        extends AbstractStreamOperator<WindowPartial<K, A>>
        implements OneInputStreamOperator<IN, WindowPartial<K, A>>, BoundedOneInput {

    private static final long serialVersionUID = 1L;

    /** Partials held before a flush: a few thousand windows' worth; a few MB of heap. */
    public static final int DEFAULT_MAX_ENTRIES = 16_384;

    private final WindowAssigner<Object, TimeWindow> assigner;
    private final KeySelector<IN, K> keySelector;
    private final AggregateFunction<IN, A, ?> aggregate;
    private final WindowEmission emission;
    private final int maxEntries;

    /**
     * Whether the assigner is Flink's tumbling one itself (not a subclass, which could assign
     * otherwise): one window per row, and its windows partition time.
     */
    private final boolean tumbling;

    private transient Map<KeyAndPart<K>, A> partials;
    private transient long watermark;
    private transient WindowAssigner.WindowAssignerContext assignerContext;

    /** Where {@link #processElement} looks a row's window up: no key object made per row. */
    private transient KeyAndPart<K> probe;

    /**
     * For a tumbling assigner, the window of the last row: in time-ordered input the next rows
     * mostly fall in it, and asking the assigner again would make the same window anew.
     */
    @Nullable private transient TimeWindow lastTumbling;

    @SuppressWarnings("unchecked")
    public WindowCombiner(
            WindowAssigner<?, TimeWindow> assigner,
            KeySelector<IN, K> keySelector,
            AggregateFunction<IN, A, ?> aggregate,
            WindowEmission emission,
            int maxEntries) {
        if (assigner instanceof MergingWindowAssigner) {
            throw new IllegalArgumentException(
                    "a window combiner takes fixed windows only: sessions merge");
        }
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries must be positive, not " + maxEntries);
        }
        this.assigner = (WindowAssigner<Object, TimeWindow>) Objects.requireNonNull(assigner);
        this.keySelector = Objects.requireNonNull(keySelector);
        this.aggregate = Objects.requireNonNull(aggregate);
        this.emission = Objects.requireNonNull(emission);
        this.maxEntries = maxEntries;
        this.tumbling = assigner.getClass() == TumblingEventTimeWindows.class;
    }

    @Override
    public void open() throws Exception {
        super.open();
        partials = new HashMap<>();
        probe = new KeyAndPart<>(null, 0L);
        watermark = Watermarks.NONE;
        assignerContext =
                new WindowAssigner.WindowAssignerContext() {
                    @Override
                    public long getCurrentProcessingTime() {
                        return getProcessingTimeService().getCurrentProcessingTime();
                    }
                };
    }

    @Override
    public void processElement(StreamRecord<IN> element) throws Exception {
        IN row = element.getValue();
        K key = keySelector.getKey(row);
        long timestamp = element.getTimestamp();
        if (tumbling) {
            // The row's window is the last row's while its time falls in it (a stagger is fixed
            // at the first row).
            TimeWindow last = lastTumbling;
            if (last == null || timestamp < last.getStart() || timestamp >= last.getEnd()) {
                last = assigner.assignWindows(row, timestamp, assignerContext).iterator().next();
                lastTumbling = last;
            }
            combine(key, row, last);
        } else {
            for (TimeWindow window : assigner.assignWindows(row, timestamp, assignerContext)) {
                combine(key, row, window);
            }
        }
        if (partials.size() >= maxEntries) {
            flush();
        }
    }

    private void combine(@Nullable K key, IN row, TimeWindow window) throws Exception {
        if (emission != WindowEmission.ALL && Watermarks.isLate(window.getEnd(), watermark)) {
            // Spark drops the row from each window that has ended and keeps it in the others.
            return;
        }
        probe.key = key;
        probe.part = window.getStart();
        A acc = partials.get(probe);
        if (acc == null) {
            acc = aggregate.createAccumulator();
            acc.end(window.getEnd());
            partials.put(new KeyAndPart<>(key, window.getStart()), aggregate.add(row, acc));
            return;
        }
        A added = aggregate.add(row, acc);
        if (added != acc) {
            // The map keeps its own key for an existing entry: the probe is not stored.
            partials.put(probe, added);
        }
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        // The windows this watermark closes must be complete downstream before it arrives there.
        flush();
        watermark = Math.max(watermark, Watermarks.fromFlink(mark.getTimestamp()));
        super.processWatermark(mark);
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        // Before the barrier: the partials belong to this checkpoint's state downstream.
        flush();
        super.prepareSnapshotPreBarrier(checkpointId);
    }

    @Override
    public void endInput() {
        flush();
    }

    @Override
    public void finish() throws Exception {
        flush();
        super.finish();
    }

    /** How many partials it holds (for tests). */
    int held() {
        return partials.size();
    }

    private void flush() {
        if (partials.isEmpty()) {
            return;
        }
        for (Map.Entry<KeyAndPart<K>, A> e : partials.entrySet()) {
            A acc = e.getValue();
            // Timestamped inside its window, as its rows were.
            output.collect(
                    new StreamRecord<>(
                            new WindowPartial<>(e.getKey().key, e.getKey().part, acc),
                            acc.end() - 1));
        }
        partials.clear();
    }
}
