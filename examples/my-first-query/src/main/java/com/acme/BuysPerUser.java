package com.acme;

import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.Collector;

import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.table.TableDef;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.List;

/**
 * Buys and spend per user per 10-minute tumbling window, from the bronze table {@code
 * events_bronze}, with a 10-minute watermark: Spark's
 *
 * <pre>{@code
 * spark.readStream.table("events_bronze")
 *     .where("event_type = 'buy'")
 *     .withWatermark("event_ts", "10 minutes")
 *     .groupBy(window("event_ts", "10 minutes"), "user_id")
 *     .agg(count("*").alias("buys"), round(sum("amount"), 2).alias("spend"))
 * }</pre>
 *
 * <p>into the table {@code buys_per_user_10min}. A window is written once the watermark has passed
 * its end, so a run writes only the windows that closed; the others stay open in the query's
 * state until a later run moves the watermark past them.
 */
public class BuysPerUser implements Query {

    /** The table this query writes. */
    public static final String TABLE = "buys_per_user_10min";

    static final Duration WINDOW = Duration.ofMinutes(10);
    static final Duration WATERMARK_DELAY = Duration.ofMinutes(10);

    static final RowType ROW =
            TableDef.columns(
                    List.of("window_start", "window_end", "user_id", "buys", "spend"),
                    new LocalZonedTimestampType(3),
                    new LocalZonedTimestampType(3),
                    new IntType(),
                    new BigIntType(),
                    new DoubleType());

    /** Its checkpoint is {@code <base>/_cp/buys-per-user}. */
    @Override
    public String name() {
        return "buys-per-user";
    }

    @Override
    public void build(QueryContext context) {
        RowType bronze = context.warehouse().rowType("events_bronze");
        int userId = bronze.getFieldIndex("user_id");
        int eventType = bronze.getFieldIndex("event_type");
        int amount = bronze.getFieldIndex("amount");

        // The source carries each row's event time and the watermark, moved at batch ends.
        DataStream<RowData> events =
                context.tableStream("events_bronze", "event_ts", WATERMARK_DELAY);
        // The window is state kept across runs: it is part of the query's identity, so that
        // its checkpoint is never taken by a query that changed it.
        context.stateful("tumbling window 10 min by user_id: buys, spend");
        DataStream<RowData> windows =
                events.filter(row -> "buy".equals(String.valueOf(row.getString(eventType))))
                        .name("buys")
                        .keyBy(row -> row.getInt(userId))
                        .window(TumblingEventTimeWindows.of(WINDOW))
                        .aggregate(new BuysAndSpend(amount), new WindowRow())
                        .returns(InternalTypeInfo.of(ROW))
                        .name("buys per user")
                        .uid("buys-per-user-window");
        context.toTable(windows, new TableDef<RowData>(TABLE, ROW, row -> row));
    }

    /** Count and sum of a window's buys: {@code [count, sum]}. */
    static final class BuysAndSpend implements AggregateFunction<RowData, double[], double[]> {

        private static final long serialVersionUID = 1L;

        private final int amount;

        BuysAndSpend(int amount) {
            this.amount = amount;
        }

        @Override
        public double[] createAccumulator() {
            return new double[2];
        }

        @Override
        public double[] add(RowData row, double[] acc) {
            acc[0]++;
            acc[1] += row.isNullAt(amount) ? 0 : row.getDouble(amount);
            return acc;
        }

        @Override
        public double[] getResult(double[] acc) {
            return acc;
        }

        @Override
        public double[] merge(double[] a, double[] b) {
            return new double[] {a[0] + b[0], a[1] + b[1]};
        }
    }

    /** The closed window as a row of the table: its bounds, the user, buys and spend. */
    static final class WindowRow
            extends ProcessWindowFunction<double[], RowData, Integer, TimeWindow> {

        private static final long serialVersionUID = 1L;

        @Override
        public void process(
                Integer user, Context context, Iterable<double[]> results, Collector<RowData> out) {
            double[] acc = results.iterator().next();
            // round(sum, 2), half up as Spark's round
            double spend =
                    BigDecimal.valueOf(acc[1]).setScale(2, RoundingMode.HALF_UP).doubleValue();
            out.collect(
                    GenericRowData.of(
                            TimestampData.fromEpochMillis(context.window().getStart()),
                            TimestampData.fromEpochMillis(context.window().getEnd()),
                            user,
                            (long) acc[0],
                            spend));
        }
    }
}
