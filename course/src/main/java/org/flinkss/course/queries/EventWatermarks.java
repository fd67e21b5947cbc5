package org.flinkss.course.queries;

import org.apache.flink.table.data.RowData;

import org.flinkss.course.event.Event;
import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.source.WatermarkNode;

/**
 * The course's {@code withWatermark("event_ts", "10 minutes")} nodes on a table of events, each
 * after the filters the course applies before it: Spark computes each node's watermark from the
 * rows that reach it and takes the minimum across a query's nodes.
 */
final class EventWatermarks {

    private EventWatermarks() {}

    /** A {@code withWatermark} after the filter {@code reaches}. */
    static WatermarkNode<RowData> after(String name, WatermarkNode.Reaches<Event> reaches) {
        return WatermarkNode.of(
                name, row -> reaches.test(EventTables.fromRow(row)), QueryCatalog.WATERMARK_DELAY);
    }
}
