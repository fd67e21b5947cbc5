package org.flinkss.jobs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventGenerator;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * {@code state summary|show|export <query>} after two rounds shows exactly what the queries keep:
 * win5's open windows are the windows the third round then closes, their counts and sums completed
 * by the third round's rows; dedup's kept ids are the ids the third round then drops as duplicates
 * (issue 35, point 1's "must show"). Both queries share one bronze, one run each a round.
 */
class StateITCase {

    private static final Duration WINDOW = Duration.ofMinutes(5);

    @TempDir Path dir;

    private CliOutput ok(String... args) {
        CliOutput o = CliOutput.of(args);
        assertThat(o.code()).as("%s: %s%s", List.of(args), o.out(), o.err()).isZero();
        return o;
    }

    private void round(String base, int batch, long start, int n) {
        ok(
                "land-events",
                "--base",
                base,
                "--batch",
                "" + batch,
                "--start",
                "" + start,
                "--n",
                "" + n);
        ok("run", "bronze", "--base", base, "--quiet");
        ok("run", "win5", "--base", base, "--quiet");
        ok("run", "dedup", "--base", base, "--quiet");
    }

    @Test
    void stateAfterTwoRoundsIsWhatTheThirdRoundClosesAndDrops() {
        String base = dir.resolve("base").toString();

        // Before any run: one line, what to do.
        CliOutput never = CliOutput.of("state", "show", "win5", "--base", dir.toString());
        assertThat(never.code()).isEqualTo(1);
        assertThat(never.err())
                .contains("query 'win5' has no checkpoint at ")
                .contains("run it first");

        // Step 1: two rounds of 500 events (ids 0..999).
        round(base, 0, 0, 500);
        round(base, 1, 500, 500);

        // Step 2: the state the next run restores.
        String summary = ok("state", "summary", "win5", "--base", base).out();
        List<List<String>> windows =
                csv(ok("state", "export", "win5", "--base", base, "--csv").out());
        assertThat(windows.get(0))
                .containsExactly("window_start", "window_end", "event_type", "events", "amount");
        windows = windows.subList(1, windows.size());
        assertThat(windows).isNotEmpty();
        assertThat(summary)
                .containsPattern("query win5: savepoint \\S+ \\(batch \\d+\\), the restore point")
                .containsPattern(
                        "\\| window-win5 +\\| window +\\| tumbling window \\| windows +\\| 3 +\\| "
                                + windows.size()
                                + " +\\| [1-9]\\d* +\\|");
        String show = ok("state", "show", "win5", "--base", base, "--limit", "2").out();
        assertThat(show)
                .contains("operator window-win5 (tumbling window): " + windows.size() + " rows")
                .contains("only showing top 2 of " + windows.size() + " rows");

        List<List<String>> kept =
                csv(ok("state", "export", "dedup", "--base", base, "--csv").out());
        assertThat(kept.get(0)).containsExactly("event_id", "expires_at");
        kept = kept.subList(1, kept.size());
        // The watermark after round 2 is event_ts(999) - 10 min; a kept id expires at its event
        // time + 10 min, so the ids still kept are those whose expiry is after that watermark.
        Instant watermark = EventGenerator.event(999).eventTs.minus(Duration.ofMinutes(10));
        Map<Long, String> expected = new LinkedHashMap<>();
        for (Event e : EventGenerator.events(0, 1000)) {
            Instant expiry = e.eventTs.plus(Duration.ofMinutes(10));
            if (expiry.isAfter(watermark)) {
                expected.put(e.eventId, expiry.toString().replace("Z", ".000Z"));
            }
        }
        Map<Long, String> keptIds = new LinkedHashMap<>();
        kept.forEach(r -> keptIds.put(Long.parseLong(r.get(0)), r.get(1)));
        assertThat(keptIds).isEqualTo(expected);

        // A batch the checkpoint does not hold: one line naming those it does.
        CliOutput noSuchBatch =
                CliOutput.of("state", "show", "win5", "--base", base, "--batch", "99");
        assertThat(noSuchBatch.code()).isEqualTo(1);
        assertThat(noSuchBatch.err())
                .contains("no restore point of batch 99")
                .contains("it holds batch");

        Set<String> before = keys(table(base, "events_5min"));
        Set<Long> dedupBefore = ids(table(base, "events_dedup"));

        // Step 3: a third round that repeats the last 60 ids of round 2 (after the watermark) and
        // brings 500 new ones: it moves the watermark past every window open after round 2.
        List<Event> third = EventGenerator.events(940, 560);
        round(base, 2, 940, 560);

        // Step 4: win5's new rows are the open windows, completed by the third round's rows, and
        // windows of the third round's rows alone.
        Map<String, double[]> added = new HashMap<>();
        for (Event e : third) {
            long start = e.eventTs.getEpochSecond() / WINDOW.toSeconds() * WINDOW.toSeconds();
            Instant s = Instant.ofEpochSecond(start);
            String key =
                    key(
                            s.toString().replace("Z", ".000Z"),
                            s.plus(WINDOW).toString().replace("Z", ".000Z"),
                            e.eventType);
            double[] sum = added.computeIfAbsent(key, k -> new double[2]);
            sum[0]++;
            sum[1] += e.amount;
        }
        Map<String, List<String>> after = new HashMap<>();
        for (List<String> row : table(base, "events_5min")) {
            String key = key(row.get(0), row.get(1), row.get(2));
            if (!before.contains(key)) {
                after.put(key, row);
            }
        }
        Set<String> open = new TreeSet<>();
        for (List<String> w : windows) {
            String key = key(w.get(0), w.get(1), w.get(2));
            open.add(key);
            assertThat(before).as("an open window is not in the table yet").doesNotContain(key);
            assertThat(after).as("the third round closes %s", key).containsKey(key);
            double[] more = added.getOrDefault(key, new double[2]);
            List<String> closed = after.get(key);
            assertThat(Long.parseLong(closed.get(3)))
                    .as("count of %s", key)
                    .isEqualTo(Long.parseLong(w.get(3)) + (long) more[0]);
            assertThat(Double.parseDouble(closed.get(4)))
                    .as("sum of %s", key)
                    .isCloseTo(Double.parseDouble(w.get(4)) + more[1], within(0.011));
        }
        for (Map.Entry<String, List<String>> row : after.entrySet()) {
            if (!open.contains(row.getKey())) {
                assertThat(added).as("a window of round 3 alone").containsKey(row.getKey());
                assertThat(Long.parseLong(row.getValue().get(3)))
                        .isEqualTo((long) added.get(row.getKey())[0]);
            }
        }

        // dedup: the third round's ids that state show listed are dropped, the others written.
        Set<Long> written = ids(table(base, "events_dedup"));
        written.removeAll(dedupBefore);
        Set<Long> expectedWritten = new TreeSet<>();
        third.forEach(e -> expectedWritten.add(e.eventId));
        expectedWritten.removeAll(keptIds.keySet());
        assertThat(new TreeSet<>(written)).isEqualTo(expectedWritten);
    }

    /** Table {@code name}'s rows as {@code table export --csv} prints them, without the header. */
    static List<List<String>> table(String base, String name) {
        List<List<String>> rows =
                csv(CliOutput.succeeded("table", "export", name, "--base", base, "--csv").out());
        return rows.subList(1, rows.size());
    }

    private static Set<String> keys(List<List<String>> rows) {
        Set<String> keys = new HashSet<>();
        rows.forEach(r -> keys.add(key(r.get(0), r.get(1), r.get(2))));
        return keys;
    }

    private static Set<Long> ids(List<List<String>> rows) {
        Set<Long> ids = new HashSet<>();
        rows.forEach(r -> ids.add(Long.parseLong(r.get(0))));
        return ids;
    }

    private static String key(String start, String end, String group) {
        return start + "|" + end + "|" + group;
    }

    /** The course's values hold no comma, no quote. */
    static List<List<String>> csv(String text) {
        return text.strip().lines().map(l -> Arrays.asList(l.split(",", -1))).toList();
    }
}
