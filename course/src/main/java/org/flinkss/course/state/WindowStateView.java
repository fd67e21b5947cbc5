package org.flinkss.course.state;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.types.Row;
import org.apache.flink.util.Collector;

import org.flinkss.course.operators.CountAndSum;
import org.flinkss.course.queries.WindowQuery;
import org.flinkss.runtime.operators.WindowAggregateState;
import org.flinkss.runtime.state.KeyedStateView;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The open windows of a DataStream {@link WindowQuery} ({@code win5}, {@code sliding}, {@code
 * sessions}, {@code gold}) as its window operator keeps them: one row per (key, window) with the
 * partial count and sum, in the columns of the table the query writes (a window here is the row the
 * table gets once the watermark passes its end, if no more rows come).
 */
final class WindowStateView implements KeyedStateView<String> {

    private static final long serialVersionUID = 1L;

    private final String query;
    private final String kind;
    private final boolean sessions;
    private final String keyColumn;

    WindowStateView(WindowQuery windows) {
        this.query = windows.name();
        this.sessions = windows.isSessions();
        this.kind =
                sessions
                        ? "session window"
                        : windows.isSliding() ? "sliding window" : "tumbling window";
        this.keyColumn = windows.rowType().getFieldNames().get(2);
    }

    @Override
    public String uid() {
        return "window-" + query;
    }

    @Override
    public String name() {
        return "window";
    }

    @Override
    public String kind() {
        return kind;
    }

    @Override
    public List<String> stateNames() {
        return sessions
                ? List.of(WindowAggregateState.WINDOWS, WindowAggregateState.SESSION_INDEX)
                : List.of(WindowAggregateState.WINDOWS);
    }

    @Override
    public TypeInformation<String> keyType() {
        return Types.STRING;
    }

    @Override
    public List<String> columns() {
        return List.of("window_start", "window_end", keyColumn, "events", "amount");
    }

    @Override
    public int keyColumn() {
        return 2;
    }

    @Override
    public TypeInformation<Row> rowType() {
        return Types.ROW_NAMED(
                columns().toArray(new String[0]),
                Types.INSTANT,
                Types.INSTANT,
                byUser() ? Types.INT : Types.STRING,
                Types.LONG,
                Types.DOUBLE);
    }

    private boolean byUser() {
        return keyColumn.equals("user_id");
    }

    @Override
    public KeyedStateReaderFunction<String, Row> reader() {
        return new Reader(sessions, byUser());
    }

    /** Row of one key's windows; sessions are kept in microseconds, fixed windows in ms. */
    private static final class Reader extends KeyedStateReaderFunction<String, Row> {
        private static final long serialVersionUID = 1L;
        private final boolean micros;
        private final boolean byUser;
        private transient MapState<Long, CountAndSum> windows;

        Reader(boolean micros, boolean byUser) {
            this.micros = micros;
            this.byUser = byUser;
        }

        @Override
        public void open(OpenContext context) {
            windows =
                    getRuntimeContext()
                            .getMapState(WindowAggregateState.windows(CountAndSum.class));
        }

        @Override
        public void readKey(String key, Context context, Collector<Row> out) throws Exception {
            for (Map.Entry<Long, CountAndSum> window : windows.entries()) {
                out.collect(row(key, window.getKey(), window.getValue(), micros, byUser));
            }
        }
    }

    /**
     * One open window as a row of the table it will be written to: start and end as instants (kept
     * in microseconds for sessions, ms else), the key as its column holds it (the null key as null,
     * a user id as an int), the partial count and the sum rounded as the table's.
     */
    static Row row(String key, long start, CountAndSum acc, boolean micros, boolean byUser) {
        Object k =
                key.equals(WindowQuery.NULL_KEY)
                        ? null
                        : byUser ? (Object) Integer.valueOf(key) : key;
        return Row.of(
                instant(start, micros),
                instant(acc.end, micros),
                k,
                acc.events,
                acc.roundedAmount());
    }

    private static Instant instant(long time, boolean micros) {
        return micros
                ? Instant.ofEpochSecond(
                        Math.floorDiv(time, 1_000_000L), Math.floorMod(time, 1_000_000L) * 1000)
                : Instant.ofEpochMilli(time);
    }
}
