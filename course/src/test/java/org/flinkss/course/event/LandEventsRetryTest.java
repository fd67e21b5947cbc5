package org.flinkss.course.event;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A batch's job runs again when a run fails or gives a short batch, nothing written in between; the
 * last failure is the command's error, naming its cause.
 */
class LandEventsRetryTest {

    /** A run that gives the batch's events in reverse order, as parallel subtasks may. */
    private static void whole(List<Event> events) {
        for (long id = 4; id >= 0; id--) {
            events.add(EventGenerator.event(id));
        }
    }

    @Test
    void aRunThatFailsOrGivesAShortBatchIsRunAgainAndTheWholeBatchComesSorted() {
        AtomicInteger runs = new AtomicInteger();
        List<Event> events =
                LandEvents.collected(
                        2,
                        5,
                        into -> {
                            switch (runs.incrementAndGet()) {
                                case 1:
                                    into.add(EventGenerator.event(0));
                                    throw new IOException("Failed to fetch job execution result");
                                case 2:
                                    into.add(EventGenerator.event(0)); // short: 1 of 5
                                    return;
                                default:
                                    whole(into);
                            }
                        });

        assertThat(runs).hasValue(LandEvents.ATTEMPTS);
        assertThat(events).isEqualTo(EventGenerator.events(0, 5));
    }

    @Test
    void theLastFailureIsTheErrorWithItsCauses() {
        AtomicInteger runs = new AtomicInteger();
        IOException last =
                new IOException(
                        "Failed to fetch job execution result",
                        new IllegalStateException("MiniCluster is not yet running"));

        assertThatThrownBy(
                        () ->
                                LandEvents.collected(
                                        2,
                                        5,
                                        into -> {
                                            runs.incrementAndGet();
                                            throw last;
                                        }))
                .isInstanceOf(IllegalStateException.class)
                .hasCause(last)
                .hasMessage(
                        "landing batch 2 failed 3 times, the last: IOException: Failed to fetch"
                                + " job execution result, caused by IllegalStateException:"
                                + " MiniCluster is not yet running; nothing was landed, run"
                                + " land-events again");
        assertThat(runs).hasValue(LandEvents.ATTEMPTS);
    }

    @Test
    void aBatchThatStaysShortIsRefusedWithItsCount() {
        assertThatThrownBy(
                        () -> LandEvents.collected(7, 5, into -> into.add(EventGenerator.event(0))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage(
                        "landing batch 7 failed 3 times, the last: the job gave 1 of 5 events;"
                                + " nothing was landed, run land-events again");
    }

    @Test
    void noEventsNeedNoRun() {
        assertThat(
                        LandEvents.collected(
                                1,
                                0,
                                into -> {
                                    throw new AssertionError("no run for 0 events");
                                }))
                .isEmpty();
    }
}
