package org.flinkss.jobs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventGenerator;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * {@code state export} of sessions and view-then-buy after two rounds is what the third round then
 * emits from (issue 35, point 1's "must show", beside {@link StateITCase}'s win5 and dedup): each
 * open session the state lists is either closed by the third round, with the same user and start
 * and its count and sum completed by exactly the third round's events of that user inside it, or
 * still open with the same start; each join row the third round writes pairs a view and a buy that
 * are each either in the state's buffer or in the third round, and every such pair that the join's
 * condition holds for is written.
 */
class StateSessionsAndJoinITCase {

    private static final Duration BOUND = Duration.ofMinutes(5);

    @TempDir Path dir;

    private void round(String base, int batch, long start, int n) {
        CliOutput.succeeded(
                "land-events",
                "--base",
                base,
                "--batch",
                "" + batch,
                "--start",
                "" + start,
                "--n",
                "" + n);
        CliOutput.succeeded("run", "bronze", "--base", base, "--quiet");
        CliOutput.succeeded("run", "sessions", "--base", base, "--quiet");
        CliOutput.succeeded("run", "view-then-buy", "--base", base, "--quiet");
    }

    @Test
    void sessionsAndBufferedViewsAndBuysAfterTwoRoundsAreWhatTheThirdRoundEmitsFrom() {
        String base = dir.resolve("base").toString();
        round(base, 0, 0, 500);
        round(base, 1, 500, 500);

        List<List<String>> openSessions = export(base, "sessions");
        assertThat(openSessions.get(0))
                .containsExactly("window_start", "window_end", "user_id", "events", "amount");
        openSessions = openSessions.subList(1, openSessions.size());
        List<List<String>> buffered = export(base, "view-then-buy");
        assertThat(buffered.get(0))
                .containsExactly("user_id", "side", "event_id", "event_ts", "matched");
        buffered = buffered.subList(1, buffered.size());
        assertThat(openSessions).isNotEmpty();
        assertThat(buffered).extracting(r -> r.get(1)).contains("view", "buy");
        List<List<String>> sessionsBefore = table(base, "events_sessions");
        List<List<String>> joinedBefore = table(base, "view_then_buy");

        // Round 3: 500 new events, later than every earlier one (none late).
        List<Event> third = EventGenerator.events(1000, 500);
        round(base, 2, 1000, 500);

        // Sessions: each open one closed with its count completed by round 3, or still open.
        List<List<String>> newSessions = minus(table(base, "events_sessions"), sessionsBefore);
        Map<String, List<String>> closedByStart = new HashMap<>();
        newSessions.forEach(r -> closedByStart.put(r.get(2) + "|" + instant(r.get(0)), r));
        Map<String, List<String>> stillOpen = new HashMap<>();
        export(base, "sessions").stream()
                .skip(1)
                .forEach(r -> stillOpen.put(r.get(2) + "|" + instant(r.get(0)), r));
        int closed = 0;
        for (List<String> open : openSessions) {
            String key = open.get(2) + "|" + instant(open.get(0));
            List<String> row = closedByStart.remove(key);
            if (row == null) {
                assertThat(stillOpen).as("session %s: closed or still open", key).containsKey(key);
                continue;
            }
            closed++;
            double[] more = eventsOf(third, row);
            assertThat(Long.parseLong(row.get(3)))
                    .as("count of session %s", key)
                    .isEqualTo(Long.parseLong(open.get(3)) + (long) more[0]);
            assertThat(Double.parseDouble(row.get(4)))
                    .as("sum of session %s", key)
                    .isCloseTo(Double.parseDouble(open.get(4)) + more[1], within(0.011));
        }
        assertThat(closed).as("round 3 closes sessions the state listed").isPositive();
        for (List<String> row : closedByStart.values()) {
            assertThat(Long.parseLong(row.get(3)))
                    .as("a session of round 3 alone: %s", row)
                    .isEqualTo((long) eventsOf(third, row)[0]);
        }

        // The join: round 3's rows are exactly the pairs of (buffer + round 3) with one side new.
        List<long[]> views = new ArrayList<>();
        List<long[]> buys = new ArrayList<>();
        for (List<String> b : buffered) {
            long[] side = {
                Long.parseLong(b.get(0)), Long.parseLong(b.get(2)), micros(instant(b.get(3))), 0
            };
            (b.get(1).equals("view") ? views : buys).add(side);
        }
        for (Event e : third) {
            long[] side = {e.userId, e.eventId, micros(e.eventTs), 1};
            if (e.eventType.equals("view")) {
                views.add(side);
            } else if (e.eventType.equals("buy")) {
                buys.add(side);
            }
        }
        List<List<String>> expected = new ArrayList<>();
        long bound = BOUND.toMillis() * 1000;
        for (long[] v : views) {
            for (long[] b : buys) {
                if (v[0] == b[0] && v[3] + b[3] > 0 && b[2] >= v[2] && b[2] <= v[2] + bound) {
                    expected.add(List.of("" + v[0], "" + v[1], "" + b[1]));
                }
            }
        }
        List<List<String>> joined = minus(table(base, "view_then_buy"), joinedBefore);
        assertThat(expected).as("round 3 makes pairs with the buffer").isNotEmpty();
        assertThat(sorted(joined)).isEqualTo(sorted(expected));
        assertThat(expected)
                .as("some pairs need a buffered side")
                .anyMatch(p -> third.stream().noneMatch(e -> ("" + e.eventId).equals(p.get(1))));
    }

    /** Round 3's events of the session row's user inside it: count and sum. */
    private static double[] eventsOf(List<Event> events, List<String> session) {
        int user = Integer.parseInt(session.get(2));
        Instant start = instant(session.get(0));
        Instant end = instant(session.get(1));
        double[] sum = new double[2];
        for (Event e : events) {
            if (e.userId == user && !e.eventTs.isBefore(start) && e.eventTs.isBefore(end)) {
                sum[0]++;
                sum[1] += e.amount;
            }
        }
        return sum;
    }

    private static List<List<String>> export(String base, String query) {
        return StateITCase.csv(
                CliOutput.succeeded("state", "export", query, "--base", base, "--csv").out());
    }

    private static List<List<String>> table(String base, String name) {
        return StateITCase.table(base, name);
    }

    /** The rows of {@code after} that are not in {@code before}, counting duplicates. */
    private static List<List<String>> minus(List<List<String>> after, List<List<String>> before) {
        List<List<String>> rest = new ArrayList<>(after);
        before.forEach(rest::remove);
        return rest;
    }

    private static List<String> sorted(List<List<String>> rows) {
        return rows.stream().map(r -> String.join(",", r)).sorted().toList();
    }

    private static Instant instant(String text) {
        return Instant.parse(text.contains("T") ? text : text.replace(' ', 'T') + "Z");
    }

    private static long micros(Instant t) {
        return t.getEpochSecond() * 1_000_000L + t.getNano() / 1000;
    }
}
