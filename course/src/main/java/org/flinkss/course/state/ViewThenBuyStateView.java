package org.flinkss.course.state;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.types.Row;
import org.apache.flink.util.Collector;

import org.flinkss.course.operators.ViewThenBuyState;
import org.flinkss.runtime.operators.NullableKey;
import org.flinkss.runtime.state.KeyedStateView;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The rows the view-then-buy join buffers ({@code view-then-buy}, {@code view-then-buy-outer}): one
 * row per buffered view or buy, its user, id and event time, and for a view whether a buy has
 * matched it yet (an unmatched one is the outer join's null row once the watermark passes its
 * range).
 */
final class ViewThenBuyStateView implements KeyedStateView<NullableKey> {

    private static final long serialVersionUID = 1L;

    private final String query;

    ViewThenBuyStateView(String query) {
        this.query = query;
    }

    @Override
    public String uid() {
        return "join-" + query;
    }

    @Override
    public String name() {
        return "join";
    }

    @Override
    public String kind() {
        return "interval join";
    }

    @Override
    public List<String> stateNames() {
        return List.of(ViewThenBuyState.VIEWS, ViewThenBuyState.BUYS);
    }

    @Override
    public TypeInformation<NullableKey> keyType() {
        return NullableKey.TYPE;
    }

    @Override
    public List<String> columns() {
        return List.of("user_id", "side", "event_id", "event_ts", "matched");
    }

    @Override
    public int keyColumn() {
        return 0;
    }

    @Override
    public TypeInformation<Row> rowType() {
        return Types.ROW_NAMED(
                columns().toArray(new String[0]),
                Types.INT,
                Types.STRING,
                Types.LONG,
                Types.INSTANT,
                Types.BOOLEAN);
    }

    @Override
    public KeyedStateReaderFunction<NullableKey, Row> reader() {
        return new Reader();
    }

    private static final class Reader extends KeyedStateReaderFunction<NullableKey, Row> {
        private static final long serialVersionUID = 1L;
        private transient MapState<Long, long[]> views;
        private transient MapState<Long, long[]> buys;

        @Override
        public void open(OpenContext context) {
            views = getRuntimeContext().getMapState(ViewThenBuyState.views());
            buys = getRuntimeContext().getMapState(ViewThenBuyState.buys());
        }

        @Override
        public void readKey(NullableKey key, Context context, Collector<Row> out) throws Exception {
            for (long[] rows : views.values()) {
                rows(key, "view", rows).forEach(out::collect);
            }
            for (long[] rows : buys.values()) {
                rows(key, "buy", rows).forEach(out::collect);
            }
        }
    }

    /**
     * The stored rows of one bucket ({@link ViewThenBuyState}'s layout): the user (null for the
     * null key), the side, the id (null if it had none), the event time and, for a view, whether a
     * buy matched it (null for a buy).
     */
    static List<Row> rows(NullableKey key, String side, long[] stored) {
        List<Row> rows = new ArrayList<>();
        for (int i = 0;
                i + ViewThenBuyState.ROW_LONGS <= stored.length;
                i += ViewThenBuyState.ROW_LONGS) {
            long flags = stored[i + 2];
            long micros = stored[i + 1];
            rows.add(
                    Row.of(
                            key.asInt(),
                            side,
                            (flags & ViewThenBuyState.NO_ID) != 0 ? null : stored[i],
                            Instant.ofEpochSecond(
                                    Math.floorDiv(micros, 1_000_000L),
                                    Math.floorMod(micros, 1_000_000L) * 1000),
                            side.equals("view") ? (flags & ViewThenBuyState.MATCHED) != 0 : null));
        }
        return rows;
    }
}
