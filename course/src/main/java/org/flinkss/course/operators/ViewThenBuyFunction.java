package org.flinkss.course.operators;

import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.annotation.ArgumentTrait;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.annotation.FunctionHint;
import org.apache.flink.table.annotation.StateHint;
import org.apache.flink.table.api.dataview.MapView;
import org.apache.flink.table.functions.ProcessTableFunction;
import org.apache.flink.types.Row;

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
 */
@FunctionHint(output = @DataTypeHint("ROW<view_id BIGINT, buy_id BIGINT>"))
public final class ViewThenBuyFunction extends ProcessTableFunction<Row> {

    private static final long serialVersionUID = 1L;

    /** A view in state: its id (null if it has none), time, and whether a buy matched it. */
    public static class View {
        public Long id;
        public Long ts;
        public Boolean matched;
    }

    /** A buy in state: its id (null if it has none) and time. */
    public static class Buy {
        public Long id;
        public Long ts;
    }

    /** The partition's next arrival number: the key of its rows in state. */
    public static class Arrivals {
        public Long next = 0L;
    }

    private final long boundMillis;

    /**
     * Register an instance: {@code createTemporarySystemFunction(name, new
     * ViewThenBuyFunction(bound))}.
     */
    public ViewThenBuyFunction(long boundMillis) {
        this.boundMillis = boundMillis;
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
        long ts = time.time();
        Long id = (Long) input.getField("eventId");
        long arrival = arrivals.next == null ? 0 : arrivals.next;
        arrivals.next = arrival + 1;
        if ("view".equals(input.getField("eventType"))) {
            View view = new View();
            view.id = id;
            view.ts = ts;
            view.matched = false;
            for (Buy buy : buys.values()) {
                if (buy.ts >= ts && buy.ts <= ts + boundMillis) {
                    collect(Row.of(id, buy.id));
                    view.matched = true;
                }
            }
            views.put(arrival, view);
            // Spark lets the view go once its watermark > ts + bound (Flink's is one less).
            time.registerOnTime(ts + boundMillis);
        } else {
            for (Map.Entry<Long, View> entry : views.entries()) {
                View view = entry.getValue();
                if (ts >= view.ts && ts <= view.ts + boundMillis) {
                    collect(Row.of(view.id, id));
                    if (!view.matched) {
                        view.matched = true;
                        views.put(entry.getKey(), view);
                    }
                }
            }
            Buy buy = new Buy();
            buy.id = id;
            buy.ts = ts;
            buys.put(arrival, buy);
            time.registerOnTime(ts - 1);
        }
    }

    public void onTimer(
            OnTimerContext ctx,
            Arrivals arrivals,
            MapView<Long, View> views,
            MapView<Long, Buy> buys)
            throws Exception {
        long watermark = ctx.timeContext(Long.class).currentWatermark() + 1;
        long bound = boundMillis;
        List<Long> expired = new ArrayList<>();
        for (Map.Entry<Long, View> entry : views.entries()) {
            View view = entry.getValue();
            if (watermark > view.ts + bound) {
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
            if (watermark >= entry.getValue().ts) {
                gone.add(entry.getKey());
            }
        }
        for (Long arrival : gone) {
            buys.remove(arrival);
        }
    }
}
