package org.flinkss.runtime.state;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.types.Row;

import java.io.Serializable;
import java.util.List;

/**
 * How to read one keyed stateful operator of a query from its checkpoint: the operator's uid and
 * key type, and a reader that turns each key's state into readable rows (an open window with its
 * partial count and sum, a kept id with its expiry). The reader must register its state with the
 * operator's own descriptors (the operator's {@code ...State} class), never a copy of them.
 *
 * @param <K> the operator's key
 */
public interface KeyedStateView<K> extends Serializable {

    /** The operator's uid in the query's job graph. */
    String uid();

    /** The operator as the query names it ({@code window}, {@code dedupe}). */
    String name();

    /** What kind of operator it is ({@code tumbling window}, {@code dedup within watermark}). */
    String kind();

    /** The names of the keyed states it keeps. */
    List<String> stateNames();

    /** The type the operator's stream is keyed by: its serializer reads the state's keys. */
    TypeInformation<K> keyType();

    /** The rows' columns, in order. */
    List<String> columns();

    /** The position among {@link #columns()} of the operator's key (for counting keys). */
    int keyColumn();

    /** The rows' type (named as {@link #columns()}). */
    TypeInformation<Row> rowType();

    /** A new reader of one key's state into rows. */
    KeyedStateReaderFunction<K, Row> reader();
}
