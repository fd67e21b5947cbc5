package org.flinkss.course.operators;

import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;

/**
 * The keyed state of a {@link ViewThenBuyJoin}, shared by the join and by whoever reads its
 * checkpoints ({@code state show}): the names, the types and the layout of a stored row.
 *
 * <p>Both states map a time bucket (event time / bound, microseconds) to the rows of the user in
 * it, each row three longs: the event id (0 when null), the event time in epoch microseconds, and
 * flags ({@link #MATCHED}, {@link #NO_ID}).
 */
public final class ViewThenBuyState {

    /** The views of a user by time bucket. */
    public static final String VIEWS = "views";

    /** The buys of a user by time bucket. */
    public static final String BUYS = "buys";

    /** Longs per stored row: id, time, flags. */
    public static final int ROW_LONGS = 3;

    /** A view that a buy matched. */
    public static final long MATCHED = 1;

    /** A row whose event_id is null: no id stands in for it (issue 37). */
    public static final long NO_ID = 2;

    private ViewThenBuyState() {}

    public static MapStateDescriptor<Long, long[]> views() {
        return rows(VIEWS);
    }

    public static MapStateDescriptor<Long, long[]> buys() {
        return rows(BUYS);
    }

    private static MapStateDescriptor<Long, long[]> rows(String name) {
        return new MapStateDescriptor<>(
                name, Types.LONG, PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO);
    }
}
