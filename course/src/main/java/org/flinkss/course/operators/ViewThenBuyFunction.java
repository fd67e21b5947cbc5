package org.flinkss.course.operators;

import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.annotation.ArgumentTrait;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.annotation.FunctionHint;
import org.apache.flink.table.annotation.StateHint;
import org.apache.flink.table.api.dataview.MapView;
import org.apache.flink.table.functions.ProcessTableFunction;
import org.apache.flink.types.Row;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The view-then-buy interval join for the Table API, as a process table function over the views and
 * buys of one table, {@code PARTITION BY} user. It exists for the left outer variant: Flink SQL's
 * LEFT interval join emits a view's null row at a cleanup time of its own (up to half the interval
 * later than Spark), while this emits it when the watermark is strictly past the view's range, as
 * {@link ViewThenBuyJoin} does in the DataStream API.
 *
 * <p>Every input row counts, as in Spark's join: rows are kept by their arrival number in the
 * partition, not by {@code event_id}, so a view landed twice joins twice.
 *
 * <p>The range is compared on the rows' {@code eventTs} in microseconds (Spark's {@code
 * TIMESTAMP}); the watermark, in milliseconds, as Spark compares it ({@code watermark * 1000}).
 * Timers are in milliseconds: a view's at its millisecond plus the bound, a buy's at the
 * millisecond before its time rounded up.
 */
@FunctionHint(output = @DataTypeHint("ROW<view_id BIGINT, buy_id BIGINT>"))
public final class ViewThenBuyFunction extends ProcessTableFunction<Row> {

    private static final long serialVersionUID = 1L;

    /**
     * A view in state: its id (null if it has none), time (epoch microseconds), and whether a buy
     * matched it.
     */
    public static class View {
        public Long id;
        public Long micros;
        public Boolean matched;
    }

    /** A buy in state: its id (null if it has none) and time (epoch microseconds). */
    public static class Buy {
        public Long id;
        public Long micros;
    }

    private static final long MICROS_PER_MILLI = 1000;

    /** The partition's next arrival number: the key of its rows in state. */
    public static class Arrivals {
        public Long next = 0L;
    }

    private final long boundMillis;
    private final long boundMicros;

    /**
     * Register an instance: {@code createTemporarySystemFunction(name, new
     * ViewThenBuyFunction(bound))}.
     */
    public ViewThenBuyFunction(long boundMillis) {
        this.boundMillis = boundMillis;
        this.boundMicros = boundMillis * MICROS_PER_MILLI;
    }

    public void eval(
            Context ctx,
            @StateHint Arrivals arrivals,
            @StateHint MapView<Long, View> views,
            @StateHint MapView<Long, Buy> buys,
            @ArgumentHint(
                            value = {
                                ArgumentTrait.SET_SEMANTIC_TABLE,
                                ArgumentTrait.REQUIRE_ON_TIME
                            },
                            name = "input")
                    Row input)
            throws Exception {
        TimeContext<Long> time = ctx.timeContext(Long.class);
        // Late rows, and so rows without a time, were routed away before the join.
        long ts = LateEvents.micros((Instant) input.getField("eventTs"));
        Long id = (Long) input.getField("eventId");
        long arrival = arrivals.next == null ? 0 : arrivals.next;
        arrivals.next = arrival + 1;
        if ("view".equals(input.getField("eventType"))) {
            View view = new View();
            view.id = id;
            view.micros = ts;
            view.matched = false;
            for (Buy buy : buys.values()) {
                if (buy.micros >= ts && buy.micros <= ts + boundMicros) {
                    collect(Row.of(id, buy.id));
                    view.matched = true;
                }
            }
            views.put(arrival, view);
            // Spark lets the view go once its watermark * 1000 > ts + bound, that is once its
            // watermark > the view's millisecond + bound (Flink's is one less).
            time.registerOnTime(Math.floorDiv(ts, MICROS_PER_MILLI) + boundMillis);
        } else {
            for (Map.Entry<Long, View> entry : views.entries()) {
                View view = entry.getValue();
                if (ts >= view.micros && ts <= view.micros + boundMicros) {
                    collect(Row.of(view.id, id));
                    if (!view.matched) {
                        view.matched = true;
                        views.put(entry.getKey(), view);
                    }
                }
            }
            Buy buy = new Buy();
            buy.id = id;
            buy.micros = ts;
            buys.put(arrival, buy);
            // No view can match once Spark's watermark * 1000 >= the buy's time.
            time.registerOnTime(-Math.floorDiv(-ts, MICROS_PER_MILLI) - 1);
        }
    }

    public void onTimer(
            OnTimerContext ctx,
            Arrivals arrivals,
            MapView<Long, View> views,
            MapView<Long, Buy> buys)
            throws Exception {
        // Spark's watermark, in microseconds.
        long watermark = (ctx.timeContext(Long.class).currentWatermark() + 1) * MICROS_PER_MILLI;
        long bound = boundMicros;
        List<Long> expired = new ArrayList<>();
        for (Map.Entry<Long, View> entry : views.entries()) {
            View view = entry.getValue();
            if (watermark > view.micros + bound) {
                expired.add(entry.getKey());
                if (!view.matched) {
                    collect(Row.of(view.id, null));
                }
            }
        }
        for (Long arrival : expired) {
            views.remove(arrival);
        }
        List<Long> gone = new ArrayList<>();
        for (Map.Entry<Long, Buy> entry : buys.entries()) {
            if (watermark >= entry.getValue().micros) {
                gone.add(entry.getKey());
            }
        }
        for (Long arrival : gone) {
            buys.remove(arrival);
        }
    }
}
