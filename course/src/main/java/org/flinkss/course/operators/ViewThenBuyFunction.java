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
 * later than Spark), while this emits it exactly when the watermark makes a match impossible, as
 * {@link ViewThenBuyJoin} does in the DataStream API.
 */
@FunctionHint(output = @DataTypeHint("ROW<view_id BIGINT, buy_id BIGINT>"))
public final class ViewThenBuyFunction extends ProcessTableFunction<Row> {

    private static final long serialVersionUID = 1L;

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
            @StateHint MapView<Long, Long> views,
            @StateHint MapView<Long, Boolean> matched,
            @StateHint MapView<Long, Long> buys,
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
        if ("view".equals(input.getField("eventType"))) {
            boolean found = false;
            for (Map.Entry<Long, Long> buy : buys.entries()) {
                if (buy.getValue() >= ts && buy.getValue() <= ts + boundMillis) {
                    collect(Row.of(id, buy.getKey()));
                    found = true;
                }
            }
            views.put(id, ts);
            matched.put(id, found);
            time.registerOnTime(ts + boundMillis - 1);
        } else {
            for (Map.Entry<Long, Long> view : views.entries()) {
                if (ts >= view.getValue() && ts <= view.getValue() + boundMillis) {
                    collect(Row.of(view.getKey(), id));
                    matched.put(view.getKey(), true);
                }
            }
            buys.put(id, ts);
            time.registerOnTime(ts - 1);
        }
    }

    public void onTimer(
            OnTimerContext ctx,
            MapView<Long, Long> views,
            MapView<Long, Boolean> matched,
            MapView<Long, Long> buys)
            throws Exception {
        long watermark = ctx.timeContext(Long.class).currentWatermark() + 1;
        long bound = boundMillis;
        List<Long> expired = new ArrayList<>();
        for (Map.Entry<Long, Long> view : views.entries()) {
            if (watermark >= view.getValue() + bound) {
                expired.add(view.getKey());
            }
        }
        for (Long id : expired) {
            if (!Boolean.TRUE.equals(matched.get(id))) {
                collect(Row.of(id, null));
            }
            views.remove(id);
            matched.remove(id);
        }
        List<Long> gone = new ArrayList<>();
        for (Map.Entry<Long, Long> buy : buys.entries()) {
            if (watermark >= buy.getValue()) {
                gone.add(buy.getKey());
            }
        }
        for (Long id : gone) {
            buys.remove(id);
        }
    }
}
