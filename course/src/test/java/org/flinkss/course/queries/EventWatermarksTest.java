package org.flinkss.course.queries;

import org.apache.flink.table.data.RowData;
import org.apache.flink.util.InstantiationUtil;

import org.junit.jupiter.api.Test;

import org.flinkss.course.event.Event;
import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.source.WatermarkNode;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

class EventWatermarksTest {

    private static RowData row(String type, Double amount) {
        return EventTables.toRow(
                new Event(1L, 7, type, Instant.parse("2025-03-01T00:00:00Z"), amount));
    }

    /** The nodes travel in the job graph: they must work after Java serialization too. */
    private static WatermarkNode<RowData> shipped(WatermarkNode<RowData> node) throws Exception {
        return InstantiationUtil.clone(node, EventWatermarksTest.class.getClassLoader());
    }

    @Test
    void aTypeNodeIsReachedByRowsOfThatTypeOnly() throws Exception {
        WatermarkNode<RowData> views = shipped(EventWatermarks.afterType("views", "view"));

        assertThat(views.reaches(row("view", 1.0))).isTrue();
        assertThat(views.reaches(row("buy", 1.0))).isFalse();
        assertThat(views.reaches(row("viewed", 1.0))).isFalse();
        assertThat(views.reaches(row(null, 1.0))).isFalse();
        assertThat(views.delayMillis()).isEqualTo(QueryCatalog.WATERMARK_DELAY.toMillis());
    }

    @Test
    void theValidAmountsNodeIsReachedBySilversRowsOnly() throws Exception {
        WatermarkNode<RowData> valid = shipped(EventWatermarks.afterValidAmounts());

        assertThat(valid.reaches(row("buy", 0.0))).isTrue();
        assertThat(valid.reaches(row("buy", 12.5))).isTrue();
        assertThat(valid.reaches(row("buy", -0.01))).isFalse();
        assertThat(valid.reaches(row("view", null))).isFalse();
    }
}
