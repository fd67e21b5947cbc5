package org.flinkss.course.operators;

import org.apache.flink.api.common.typeinfo.TypeInformation;

import org.flinkss.course.event.Event;
import org.flinkss.runtime.operators.LateRowRouter;
import org.flinkss.runtime.progress.RunScope;

import java.time.Instant;

/**
 * The engine's {@link LateRowRouter} on the course's events, whose event time is {@code event_ts}.
 */
public final class LateEvents {

    private LateEvents() {}

    /**
     * A router before stateful operator {@code operatorName} that drops by Spark's {@code rule}.
     */
    public static LateRowRouter<Event> router(
            String operatorName, LateRowRouter.Rule rule, RunScope scope) {
        return new LateRowRouter<>(
                operatorName,
                rule,
                e -> e.eventTs == null ? null : micros(e.eventTs),
                TypeInformation.of(Event.class),
                scope);
    }

    /** Epoch microseconds of an instant, as Spark's TIMESTAMP holds it (sub-micros floored). */
    public static long micros(Instant t) {
        return Math.addExact(
                Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1000);
    }
}
