package org.flinkss.course.event;

import java.io.Serializable;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One event of the course's feed: the row {@code event_id LONG, user_id INT, event_type STRING,
 * event_ts TIMESTAMP, amount DOUBLE}.
 *
 * <p>A Flink POJO (public no-arg constructor, public fields), so Flink serializes it field by field
 * and the Table API maps it to columns. Every field is nullable: bronze keeps a JSON line with
 * missing fields and stores them as nulls, as Spark's JSON reader does.
 */
public final class Event implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The schema the course reads the landing folder with. */
    public static final String SCHEMA_DDL =
            "event_id LONG, user_id INT, event_type STRING, event_ts TIMESTAMP, amount DOUBLE";

    /** The column names in schema order, as Spark writes them. */
    public static final List<String> COLUMNS =
            List.of("event_id", "user_id", "event_type", "event_ts", "amount");

    public Long eventId;
    public Integer userId;
    public String eventType;
    public Instant eventTs;
    public Double amount;

    public Event() {}

    public Event(Long eventId, Integer userId, String eventType, Instant eventTs, Double amount) {
        this.eventId = eventId;
        this.userId = userId;
        this.eventType = eventType;
        this.eventTs = eventTs;
        this.amount = amount;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Event)) {
            return false;
        }
        Event other = (Event) o;
        return Objects.equals(eventId, other.eventId)
                && Objects.equals(userId, other.userId)
                && Objects.equals(eventType, other.eventType)
                && Objects.equals(eventTs, other.eventTs)
                && Objects.equals(amount, other.amount);
    }

    @Override
    public int hashCode() {
        return Objects.hash(eventId, userId, eventType, eventTs, amount);
    }

    @Override
    public String toString() {
        return "Event{eventId="
                + eventId
                + ", userId="
                + userId
                + ", eventType="
                + eventType
                + ", eventTs="
                + eventTs
                + ", amount="
                + amount
                + '}';
    }
}
