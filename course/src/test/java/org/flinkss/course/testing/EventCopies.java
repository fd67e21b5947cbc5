package org.flinkss.course.testing;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventGenerator;

import java.util.ArrayList;
import java.util.List;

/**
 * Copies of the course's events that differ only in their {@code event_type}: which copy of an id a
 * query kept (dedup's first, an upsert's last) reads off its table.
 */
public final class EventCopies {

    private EventCopies() {}

    /**
     * Events {@code from .. from + n - 1} of the course's generator, each of type {@code payload}.
     */
    public static List<Event> of(long from, int n, String payload) {
        List<Event> events = new ArrayList<>(n);
        for (Event e : EventGenerator.events(from, n)) {
            e.eventType = payload;
            events.add(e);
        }
        return events;
    }
}
