package org.flinkss.runtime.source.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;

import org.flinkss.runtime.source.RecordFormat;
import org.flinkss.runtime.source.SourceSpec;
import org.flinkss.runtime.source.SplitPlanner;
import org.flinkss.runtime.source.WatermarkNode;
import org.flinkss.runtime.source.WorkSplit;

import java.util.List;
import java.util.stream.Collectors;

/**
 * A source that reads in Spark's micro-batches: each batch reads what its {@link SplitPlanner}
 * planned (files, Kafka offsets, table versions), emits the batch's watermark after all its
 * records, and is committed by a checkpoint before the next batch starts.
 *
 * <p><b>Guarantees.</b> With the query's checkpoints, every record is emitted to the job exactly
 * once across runs, kills and restores: the committed position and the batch in flight live in the
 * enumerator's state, the splits being read (with their positions) in the readers' state. The
 * watermark is part of that state, so a restored job starts from the watermark the previous run
 * ended with (Flink itself keeps no watermark in checkpoints).
 *
 * <p><b>Pitfalls.</b> The source is always unbounded, even for an availableNow run: a bounded
 * source ends with a {@code MAX_WATERMARK} that closes every open window, and a finished job loses
 * its checkpoints. An availableNow run ends by a stop with savepoint once the source says it has
 * caught up (the runner watches for it). Give it {@code WatermarkStrategy.noWatermarks()}: it emits
 * the batches' watermarks itself.
 */
@Internal
public final class MicroBatchSource<T, S extends WorkSplit>
        implements Source<T, MicroBatchSplit<S>, EnumeratorState<S>>, ResultTypeQueryable<T> {

    private static final long serialVersionUID = 1L;

    private final SourceSpec spec;
    private final SplitPlanner<S> planner;
    private final RecordFormat<T, S> format;
    private final List<WatermarkNode<T>> nodes;

    /**
     * @param nodes the query's {@code withWatermark} nodes on this source (none: no watermark)
     */
    public MicroBatchSource(
            SourceSpec spec,
            SplitPlanner<S> planner,
            RecordFormat<T, S> format,
            List<WatermarkNode<T>> nodes) {
        this.spec = spec;
        this.planner = planner;
        this.format = format;
        this.nodes = List.copyOf(nodes);
    }

    public SourceSpec spec() {
        return spec;
    }

    /** The planner as the job ships it: the enumerator restores its own copy. */
    SplitPlanner<S> planner() {
        return planner;
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SplitEnumerator<MicroBatchSplit<S>, EnumeratorState<S>> createEnumerator(
            SplitEnumeratorContext<MicroBatchSplit<S>> context) {
        return new MicroBatchEnumerator<>(context, spec, planner, null, delays());
    }

    @Override
    public SplitEnumerator<MicroBatchSplit<S>, EnumeratorState<S>> restoreEnumerator(
            SplitEnumeratorContext<MicroBatchSplit<S>> context, EnumeratorState<S> checkpoint) {
        return new MicroBatchEnumerator<>(context, spec, planner, checkpoint, delays());
    }

    @Override
    public SimpleVersionedSerializer<MicroBatchSplit<S>> getSplitSerializer() {
        return new MicroBatchSplit.Serializer<>(planner.splitSerializer());
    }

    @Override
    public SimpleVersionedSerializer<EnumeratorState<S>> getEnumeratorCheckpointSerializer() {
        return new EnumeratorState.Serializer<>(planner.splitSerializer());
    }

    @Override
    public SourceReader<T, MicroBatchSplit<S>> createReader(SourceReaderContext readerContext) {
        return new MicroBatchReader<>(
                readerContext, format, spec.name(), spec.skipMissingFiles(), nodes);
    }

    private List<Long> delays() {
        return nodes.stream().map(WatermarkNode::delayMillis).collect(Collectors.toList());
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return format.producedType();
    }
}
