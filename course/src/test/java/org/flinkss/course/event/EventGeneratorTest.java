package org.flinkss.course.event;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EventGeneratorTest {

    /** oracle-sample.csv: the first events of land_events(1, 0) as Spark 4.2 writes them. */
    static final List<Event> ORACLE =
            List.of(
                    new Event(0L, 4, "view", Instant.parse("2025-03-01T00:00:00Z"), 95.94),
                    new Event(1L, 50, "buy", Instant.parse("2025-03-01T00:00:10Z"), 81.61),
                    new Event(2L, 2, "view", Instant.parse("2025-03-01T00:00:20Z"), 65.28),
                    new Event(3L, 6, "click", Instant.parse("2025-03-01T00:00:30Z"), 55.05),
                    new Event(4L, 18, "view", Instant.parse("2025-03-01T00:00:40Z"), 52.68));

    @Test
    void firstFiveEventsAreSparksOracleRows() {
        assertThat(EventGenerator.events(0, 5)).isEqualTo(ORACLE);
    }

    @Test
    void eventsHoldIdsStartToStartPlusNMinusOneInOrder() {
        List<Event> events = EventGenerator.events(1000, 500);

        assertThat(events.stream().map(e -> e.eventId).collect(Collectors.toList()))
                .hasSize(500)
                .startsWith(1000L)
                .endsWith(1499L)
                .isSorted();
        assertThat(events.get(0)).isEqualTo(EventGenerator.event(1000));
        assertThat(EventGenerator.events(7, 0)).isEmpty();
        assertThatThrownBy(() -> EventGenerator.events(0, -1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void eventTimesAreTenSecondsApartFromMarchFirst2025Utc() {
        assertThat(EventGenerator.event(0).eventTs)
                .isEqualTo(Instant.parse("2025-03-01T00:00:00Z"));
        assertThat(EventGenerator.event(1000).eventTs)
                .isEqualTo(Instant.parse("2025-03-01T02:46:40Z"));
    }

    @Test
    void columnsStayInTheirRanges() {
        for (Event e : EventGenerator.events(-50_000, 100_000)) {
            assertThat(e.userId).isBetween(1, 50);
            assertThat(e.eventType).isIn("view", "click", "buy");
            assertThat(e.amount).isBetween(0.0, 99.99);
            assertThat(BigDecimal.valueOf(e.amount).scale()).isLessThanOrEqualTo(2);
        }
    }

    @Test
    void roundIsHalfUpOnTheDoublesDecimalText() {
        // 2.675 is stored as 2.67499999...; Spark rounds its text "2.675", giving 2.68.
        assertThat(EventGenerator.roundHalfUp(2.675, 2)).isEqualTo(2.68);
        assertThat(EventGenerator.roundHalfUp(0.125, 2)).isEqualTo(0.13);
        assertThat(EventGenerator.roundHalfUp(-0.125, 2)).isEqualTo(-0.13);
        assertThat(EventGenerator.roundHalfUp(95.94, 2)).isEqualTo(95.94);
        assertThat(EventGenerator.roundHalfUp(Double.NaN, 2)).isNaN();
    }

    @Test
    void eventIsAFlinkPojo() {
        // A POJO is serialized field by field and maps to columns in the Table API; a generic
        // type would fall back to Kryo.
        TypeInformation<Event> type = TypeInformation.of(Event.class);

        assertThat(type).isInstanceOf(PojoTypeInfo.class);
        assertThat(((PojoTypeInfo<Event>) type).getFieldNames())
                .containsExactlyInAnyOrder("eventId", "userId", "eventType", "eventTs", "amount");
    }

    @Test
    void eventsWithEqualFieldsAreEqual() {
        Event a = EventGenerator.event(3);
        Event b = new Event(a.eventId, a.userId, a.eventType, a.eventTs, a.amount);

        assertThat(b).isEqualTo(a).hasSameHashCodeAs(a);
        assertThat(new Event()).isEqualTo(new Event()).isNotEqualTo(a);
        assertThat(a)
                .hasToString(
                        "Event{eventId=3, userId=6, eventType=click,"
                                + " eventTs=2025-03-01T00:00:30Z, amount=55.05}");
        assertThat(Event.COLUMNS)
                .containsExactly("event_id", "user_id", "event_type", "event_ts", "amount");
    }
}
