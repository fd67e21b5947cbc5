package org.flinkss.course.tables;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.utils.JoinedRowData;

import org.junit.jupiter.api.Test;

import org.flinkss.course.event.Event;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** An event's row and back: the same event whatever kind of row holds it. */
class EventTablesTest {

    private static final Event FULL =
            new Event(42L, 7, "buy", Instant.parse("2025-03-01T00:04:59.123456Z"), 19.99);
    private static final Event EMPTY = new Event(null, null, null, null, null);

    @Test
    void aTableReadersRowGivesBackTheEventItWasMadeOf() {
        assertThat(EventTables.fromRow(EventTables.toRow(FULL))).isEqualTo(FULL);
        assertThat(EventTables.fromRow(EventTables.toRow(EMPTY))).isEqualTo(EMPTY);
    }

    @Test
    void aRowOfAnotherKindGivesTheSameEvent() {
        // Not a GenericRowData: the row is read through its typed getters.
        RowData full = new JoinedRowData(EventTables.toRow(FULL), GenericRowData.of());
        RowData empty = new JoinedRowData(EventTables.toRow(EMPTY), GenericRowData.of());

        assertThat(EventTables.fromRow(full)).isEqualTo(FULL);
        assertThat(EventTables.fromRow(empty)).isEqualTo(EMPTY);
    }

    @Test
    void columnsAfterTheEventsAreNotRead() {
        GenericRowData rescued = new GenericRowData(6);
        RowData event = EventTables.toRow(FULL);
        for (int i = 0; i < 5; i++) {
            rescued.setField(i, ((GenericRowData) event).getField(i));
        }
        rescued.setField(5, StringData.fromString("{\"extra\":1}"));

        assertThat(EventTables.fromRow(rescued)).isEqualTo(FULL);
    }
}
