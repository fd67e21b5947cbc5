package org.flinkss.course.state;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.types.Row;
import org.apache.flink.util.Collector;

import org.flinkss.runtime.operators.DedupState;
import org.flinkss.runtime.operators.NullableKey;
import org.flinkss.runtime.state.KeyedStateView;

import java.time.Instant;
import java.util.List;

/**
 * The ids a DataStream {@code DedupQuery} ({@code dedup}, {@code silver}) remembers: one row per
 * kept {@code event_id} with the watermark at which it is forgotten ({@code expires_at}); a later
 * copy of the id is dropped until the watermark reaches it.
 */
final class DedupStateView implements KeyedStateView<NullableKey> {

    private static final long serialVersionUID = 1L;

    private final String query;

    DedupStateView(String query) {
        this.query = query;
    }

    @Override
    public String uid() {
        return "dedupe-" + query;
    }

    @Override
    public String name() {
        return "dedupe";
    }

    @Override
    public String kind() {
        return "dedup within watermark";
    }

    @Override
    public List<String> stateNames() {
        return List.of(DedupState.EXPIRES_AT, DedupState.EXPIRING);
    }

    @Override
    public TypeInformation<NullableKey> keyType() {
        return NullableKey.TYPE;
    }

    @Override
    public List<String> columns() {
        return List.of("event_id", "expires_at");
    }

    @Override
    public int keyColumn() {
        return 0;
    }

    @Override
    public TypeInformation<Row> rowType() {
        return Types.ROW_NAMED(columns().toArray(new String[0]), Types.LONG, Types.INSTANT);
    }

    @Override
    public KeyedStateReaderFunction<NullableKey, Row> reader() {
        return new Reader();
    }

    private static final class Reader extends KeyedStateReaderFunction<NullableKey, Row> {
        private static final long serialVersionUID = 1L;
        private transient ValueState<Long> expiresAt;

        @Override
        public void open(OpenContext context) {
            expiresAt = getRuntimeContext().getState(DedupState.expiresAt());
        }

        @Override
        public void readKey(NullableKey key, Context context, Collector<Row> out) throws Exception {
            Long expiry = expiresAt.value();
            if (expiry != null) {
                out.collect(row(key, expiry));
            }
        }
    }

    /** A kept id (null for the null id) and the watermark that forgets it. */
    static Row row(NullableKey key, long expiresAtMillis) {
        return Row.of(key.asLong(), Instant.ofEpochMilli(expiresAtMillis));
    }
}
