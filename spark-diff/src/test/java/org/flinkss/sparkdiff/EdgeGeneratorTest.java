package org.flinkss.sparkdiff;

import org.junit.jupiter.api.Test;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventJson;
import org.flinkss.course.event.EventLinesFormat;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The seeded rounds: repeatable, written as the project's (and Spark's) JSON writer writes events,
 * and on the edges.
 */
class EdgeGeneratorTest {

    @Test
    void theSameSeedGivesTheSameRoundsAndAnotherSeedOthers() {
        List<EdgeGenerator.Round> a = EdgeGenerator.rounds(3, 5);
        assertThat(EdgeGenerator.rounds(3, 5)).isEqualTo(a);
        assertThat(EdgeGenerator.rounds(4, 5)).isNotEqualTo(a);
    }

    @Test
    void fiveRoundsStartThenMoveTheWatermarkALotALittleNotAtAllAndLandNothing() {
        List<EdgeGenerator.Round> rounds = EdgeGenerator.rounds(1, 5);
        Set<EdgeGenerator.Kind> kinds =
                rounds.stream().map(EdgeGenerator.Round::kind).collect(Collectors.toSet());
        assertThat(kinds).isEqualTo(EnumSet.allOf(EdgeGenerator.Kind.class));
        assertThat(rounds.get(0).kind()).isEqualTo(EdgeGenerator.Kind.START);
        for (EdgeGenerator.Round r : rounds) {
            if (r.kind() == EdgeGenerator.Kind.EMPTY) {
                assertThat(r.rows()).as("rows of round %s", r.number()).isZero();
            } else {
                assertThat(r.rows()).as("rows of round %s", r.number()).isBetween(150, 450);
            }
        }
    }

    @Test
    void aRowWithMillisecondsIsTheLineTheProjectsWriterWrites() {
        EdgeGenerator.Ev ev = new EdgeGenerator.Ev(12L, 4, "view", EdgeGenerator.at(61_001), 2.25);
        assertThat(EdgeGenerator.json(ev))
                .isEqualTo(EventJson.toJson(new Event(12L, 4, "view", ev.ts(), 2.25)));
        EdgeGenerator.Ev nulls = new EdgeGenerator.Ev(13L, null, null, null, -0.5);
        assertThat(EdgeGenerator.json(nulls))
                .isEqualTo(EventJson.toJson(new Event(13L, null, null, null, -0.5)));
    }

    @Test
    void aRowWithMicrosecondsKeepsThemAndTheProjectReadsTheLine() {
        EdgeGenerator.Ev ev =
                new EdgeGenerator.Ev(1L, 1, "buy", EdgeGenerator.at(250).plusNanos(123_000), 1.0);
        assertThat(EdgeGenerator.json(ev)).contains("\"event_ts\":\"2025-03-01T00:00:00.250123Z\"");
        assertThat(EventJson.parse(EdgeGenerator.json(ev)).eventId).isEqualTo(1L);
    }

    @Test
    void everySeedHasDuplicateIdsInvalidRowsAndMicroseconds() {
        for (long seed = 1; seed <= 5; seed++) {
            List<EdgeGenerator.Ev> all =
                    EdgeGenerator.rounds(seed, 5).stream()
                            .flatMap(r -> r.files().stream())
                            .flatMap(List::stream)
                            .collect(Collectors.toList());
            assertThat(all.stream().map(EdgeGenerator.Ev::id).distinct().count())
                    .as("seed %s", seed)
                    .isLessThan(all.size());
            assertThat(all).as("seed %s", seed).anyMatch(e -> e.amount() == null || e.amount() < 0);
            assertThat(all)
                    .as("seed %s", seed)
                    .anyMatch(e -> e.ts() != null && e.ts().getNano() % 1_000_000 != 0);
            assertThat(all).as("seed %s", seed).anyMatch(e -> e.ts() == null);
        }
    }

    @Test
    void aStillRoundMovesNoWatermarkAndARoundWithRowsFollowsAnEmptyOne() {
        for (long seed = 1; seed <= 5; seed++) {
            List<EdgeGenerator.Round> rounds = EdgeGenerator.rounds(seed, 5);
            long[] maxima = maxima(List.of(), new long[] {-1, -1, -1, -1});
            for (EdgeGenerator.Round r : rounds) {
                long[] after = maxima(rows(r), maxima.clone());
                if (r.kind() == EdgeGenerator.Kind.STILL) {
                    assertThat(r.rows()).as("seed %s round %s", seed, r.number()).isPositive();
                    assertThat(after)
                            .as(
                                    "all, views, buys, valid amounts after seed %s round %s",
                                    seed, r.number())
                            .containsExactly(maxima);
                }
                if (r.kind() == EdgeGenerator.Kind.BIG || r.kind() == EdgeGenerator.Kind.SMALL) {
                    assertThat(after[0])
                            .as("seed %s round %s", seed, r.number())
                            .isGreaterThan(maxima[0]);
                }
                maxima = after;
            }
            assertThat(rounds.get(rounds.size() - 1).kind())
                    .as("seed %s", seed)
                    .isNotEqualTo(EdgeGenerator.Kind.EMPTY);
        }
    }

    @Test
    void oddSeedsTheBuildsDefaultAmongThemStartWithViewsAndNoBuys() {
        for (long seed = 1; seed <= 5; seed++) {
            List<EdgeGenerator.Ev> first = rows(EdgeGenerator.rounds(seed, 5).get(0));
            assertThat(first).as("seed %s", seed).anyMatch(e -> "view".equals(e.type()));
            if (seed % 2 == 1) {
                assertThat(first).as("seed %s", seed).noneMatch(e -> "buy".equals(e.type()));
            } else {
                assertThat(first).as("seed %s", seed).anyMatch(e -> "buy".equals(e.type()));
            }
        }
    }

    /**
     * Issue 37: every round with rows lands amounts as Spark writes doubles, rows at and before the
     * epoch, lines that are not clean, and the extreme keys; each raw line reads, as Spark's
     * PERMISSIVE reader, into the row the generator says; rows without an id share one file.
     */
    @Test
    void everyRoundLandsTheCasesOfIssue37AndEachRawLineReadsAsItsRow() {
        for (long seed = 1; seed <= 5; seed++) {
            for (EdgeGenerator.Round r : EdgeGenerator.rounds(seed, 5)) {
                if (r.kind() == EdgeGenerator.Kind.EMPTY) {
                    continue;
                }
                List<EdgeGenerator.Ev> all = rows(r);
                String lines =
                        all.stream().map(EdgeGenerator::json).collect(Collectors.joining("\n"));
                for (String d : OffTheEdges.DOUBLES) {
                    assertThat(lines).as("seed %s round %s", seed, r.number()).contains(":" + d);
                }
                assertThat(all)
                        .anyMatch(e -> e.ts() != null && e.ts().equals(java.time.Instant.EPOCH))
                        .anyMatch(e -> e.ts() != null && e.ts().isBefore(java.time.Instant.EPOCH))
                        .anyMatch(e -> e.id() == null)
                        .anyMatch(e -> "view".equals(e.type()) && e.user() == null);
                assertThat(all.stream().filter(e -> e.raw() != null)).hasSizeGreaterThan(5);
                for (EdgeGenerator.Ev e : all) {
                    if (e.raw() == null) {
                        continue;
                    }
                    assertThat(sparksRow(e.raw()))
                            .as("the row of %s", e.raw())
                            .isEqualTo(new Event(e.id(), e.user(), e.type(), e.ts(), e.amount()));
                }
                for (int f = 1; f < r.files().size(); f++) {
                    assertThat(r.files().get(f)).noneMatch(e -> e.id() == null);
                }
            }
        }
        assertThat(rows(EdgeGenerator.rounds(1, 5).get(0)))
                .anyMatch(e -> Long.valueOf(Long.MIN_VALUE).equals(e.id()))
                .anyMatch(e -> "buy".equals(e.type()) == false && e.user() != null);
    }

    @Test
    void roundsLandOtherCopiesOfIdsInFilesOfDifferentSizesAndLaterInOneFile() {
        int acrossFiles = 0;
        for (long seed = 1; seed <= 5; seed++) {
            for (EdgeGenerator.Round r : EdgeGenerator.rounds(seed, 5)) {
                List<List<EdgeGenerator.Ev>> files = r.files();
                // id -> file of each copy with another amount than the id's first copy.
                java.util.Map<Long, EdgeGenerator.Ev> firsts = new java.util.HashMap<>();
                java.util.Map<Long, Integer> fileOfFirst = new java.util.HashMap<>();
                boolean inOneFile = false;
                for (int f = 0; f < files.size(); f++) {
                    for (EdgeGenerator.Ev e : files.get(f)) {
                        if (e.id() == null) {
                            continue;
                        }
                        EdgeGenerator.Ev first = firsts.putIfAbsent(e.id(), e);
                        fileOfFirst.putIfAbsent(e.id(), f);
                        if (first != null
                                && !java.util.Objects.equals(first.amount(), e.amount())) {
                            if (fileOfFirst.get(e.id()) == f) {
                                inOneFile = true;
                            } else {
                                acrossFiles++;
                                assertThat(files.get(f).size())
                                        .as(
                                                "seed %s round %s: the files differ in size",
                                                seed, r.number())
                                        .isNotEqualTo(files.get(fileOfFirst.get(e.id())).size());
                            }
                        }
                    }
                }
                if (r.kind() != EdgeGenerator.Kind.EMPTY) {
                    assertThat(inOneFile).as("seed %s round %s", seed, r.number()).isTrue();
                }
            }
        }
        assertThat(acrossFiles).as("other copies in other files, five seeds").isGreaterThan(10);
    }

    @Test
    void seedThreeLandsNoBuyForThreeRounds() {
        List<EdgeGenerator.Round> rounds = EdgeGenerator.rounds(3, 5);
        for (int i = 0; i < 3; i++) {
            assertThat(rows(rounds.get(i))).noneMatch(e -> "buy".equals(e.type()));
        }
        assertThat(rounds.subList(3, 5).stream().flatMap(r -> rows(r).stream()))
                .anyMatch(e -> "buy".equals(e.type()));
    }

    /** The row the project's reader makes of a line, as Spark's PERMISSIVE reader does. */
    private static Event sparksRow(String line) {
        if (!EventLinesFormat.isArray(line)) {
            return EventJson.parseLenient(line, null).event;
        }
        try {
            List<String> objects = EventJson.arrayElements(line, new java.util.ArrayList<>());
            assertThat(objects).hasSize(1);
            return EventJson.parseLenient(objects.get(0), null).event;
        } catch (org.flinkss.course.event.EventParseException e) {
            return new Event();
        }
    }

    private static List<EdgeGenerator.Ev> rows(EdgeGenerator.Round r) {
        return r.files().stream().flatMap(List::stream).collect(Collectors.toList());
    }

    /** The newest milliseconds of all rows, views, buys and valid amounts, from {@code m} on. */
    private static long[] maxima(List<EdgeGenerator.Ev> rows, long[] m) {
        for (EdgeGenerator.Ev e : rows) {
            if (e.ts() == null) {
                continue;
            }
            long t = EdgeGenerator.millis(e.ts());
            m[0] = Math.max(m[0], t);
            if ("view".equals(e.type())) {
                m[1] = Math.max(m[1], t);
            }
            if ("buy".equals(e.type())) {
                m[2] = Math.max(m[2], t);
            }
            if (e.amount() != null && e.amount() >= 0) {
                m[3] = Math.max(m[3], t);
            }
        }
        return m;
    }
}
