package org.flinkss.course.queries;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.assigners.SlidingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.WindowAssigner;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import org.flinkss.course.event.Event;
import org.flinkss.course.operators.CountAndSum;
import org.flinkss.course.operators.LateEvents;
import org.flinkss.runtime.operators.WindowAggregate;
import org.flinkss.runtime.operators.WindowCombiner;
import org.flinkss.runtime.operators.WindowPartial;
import org.flinkss.runtime.query.QueryContext;

/**
 * A {@link WindowQuery} in the DataStream API: Flink's window assigners and the course's aggregate
 * function ({@link CountAndSum}) in the runtime's keyed window operator ({@link WindowAggregate}),
 * which keeps Spark's watermark rules; tumbling and sliding windows are combined before the
 * shuffle. The Table API's twin is {@link WindowTableBuilder}; both write identical tables.
 */
final class WindowStreamBuilder {

    private final WindowQuery query;
    private final QueryContext context;

    WindowStreamBuilder(WindowQuery query, QueryContext context) {
        this.query = query;
        this.context = context;
    }

    private WindowAssigner<Object, TimeWindow> assigner() {
        switch (query.kind()) {
            case SLIDING:
                return SlidingEventTimeWindows.of(query.size(), query.slide());
            case SESSION:
                return EventTimeSessionWindows.withGap(query.size());
            default:
                return TumblingEventTimeWindows.of(query.size());
        }
    }

    /** The windows of the rows that reach it, as the query's output mode wants them. */
    DataStream<RowData> windows(DataStream<Event> onTime) {
        // Locals, not fields: the key selector and the emitter below travel to the TaskManagers.
        boolean byUser = query.byUser();
        KeySelector<Event, String> key =
                byUser
                        ? e -> e.userId == null ? WindowQuery.NULL_KEY : String.valueOf(e.userId)
                        : e -> e.eventType == null ? WindowQuery.NULL_KEY : e.eventType;
        WindowAggregate.Emitter<String, CountAndSum> emitter =
                (start, end, k, acc) ->
                        GenericRowData.of(
                                WindowQuery.timestampOfMicros(start),
                                WindowQuery.timestampOfMicros(end),
                                k.equals(WindowQuery.NULL_KEY)
                                        ? null
                                        : byUser
                                                ? (Object) Integer.valueOf(k)
                                                : StringData.fromString(k),
                                acc.events,
                                acc.roundedAmount());
        WindowAggregate.Spec<String, Event, CountAndSum> aggregate =
                new WindowAggregate.Spec<>(
                        "window",
                        assigner(),
                        new CountAndSum.Function(),
                        CountAndSum.class,
                        emitter,
                        query.emission(),
                        context.scope());
        if (query.kind() == WindowQuery.Kind.SESSION) {
            // Sessions merge: each row goes to the keyed operator as it is.
            return windowOperator(
                    onTime.keyBy(key),
                    aggregate.overRows(
                            e -> e.eventTs == null ? null : LateEvents.micros(e.eventTs)));
        }
        // Fixed windows aggregate in two phases, as Spark's partial and final HashAggregate: a
        // combiner before the shuffle folds each subtask's rows into one partial per (key,
        // window), and the keyed operator (same uid and state as the row-by-row one) merges them.
        TypeInformation<WindowPartial<String, CountAndSum>> partialType =
                WindowPartial.type(Types.STRING, Types.POJO(CountAndSum.class));
        KeyedStream<WindowPartial<String, CountAndSum>, String> partials =
                onTime.transform(
                                "combine-window-rows",
                                partialType,
                                new WindowCombiner<>(
                                        assigner(),
                                        key,
                                        new CountAndSum.Function(),
                                        query.emission(),
                                        WindowCombiner.DEFAULT_MAX_ENTRIES))
                        .uid("combine-window-rows-" + query.name())
                        .keyBy(p -> p.key, Types.STRING);
        return windowOperator(partials, aggregate.overPartials());
    }

    /**
     * The keyed window operator, under one uid whichever rows reach it (a session's rows, or the
     * combiner's partials), so its state stays where a checkpoint left it.
     */
    private <T> DataStream<RowData> windowOperator(
            KeyedStream<T, String> keyed, WindowAggregate<String, T, CountAndSum> aggregate) {
        return keyed.transform(
                        "window",
                        InternalTypeInfo.of(query.rowType()),
                        new WindowAggregate.Operator<>(aggregate))
                .uid("window-" + query.name());
    }
}
