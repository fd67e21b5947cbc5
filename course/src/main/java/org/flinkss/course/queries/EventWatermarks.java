package org.flinkss.course.queries;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;

import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.source.WatermarkNode;

/**
 * The course's {@code withWatermark("event_ts", "10 minutes")} nodes on a table of events, each
 * after the filters the course applies before it: Spark computes each node's watermark from the
 * rows that reach it and takes the minimum across a query's nodes.
 *
 * <p>The source's readers test every row against every node, so the tests read the row's columns in
 * place rather than converting it to an {@code Event}.
 */
final class EventWatermarks {

    private static final int EVENT_TYPE = EventTables.EVENT_ROW.getFieldIndex("event_type");
    private static final int AMOUNT = EventTables.EVENT_ROW.getFieldIndex("amount");

    private EventWatermarks() {}

    /** A {@code withWatermark} after {@code event_type = type}, named {@code name}. */
    static WatermarkNode<RowData> afterType(String name, String type) {
        return WatermarkNode.of(name, new TypeIs(type), QueryCatalog.WATERMARK_DELAY);
    }

    /** A {@code withWatermark} after silver's {@code amount IS NOT NULL AND amount >= 0}. */
    static WatermarkNode<RowData> afterValidAmounts() {
        return WatermarkNode.of(
                "valid amounts",
                row -> !row.isNullAt(AMOUNT) && row.getDouble(AMOUNT) >= 0,
                QueryCatalog.WATERMARK_DELAY);
    }

    /** {@code event_type = type}, comparing the column's bytes. */
    private static final class TypeIs implements WatermarkNode.Reaches<RowData> {

        private static final long serialVersionUID = 1L;

        private final String type;

        /** The type as Flink's string, made once per reader (it is not serializable). */
        private transient StringData typeData;

        TypeIs(String type) {
            this.type = type;
        }

        @Override
        public boolean test(RowData row) {
            if (typeData == null) {
                typeData = StringData.fromString(type);
            }
            return !row.isNullAt(EVENT_TYPE) && typeData.equals(row.getString(EVENT_TYPE));
        }
    }
}
