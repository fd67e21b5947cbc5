package org.flinkss.sparkdiff;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

/**
 * Seeded rounds of events built to hit the edges of Spark's rules (issue 13): rows late by exactly
 * the watermark and by a millisecond either side (for the events' watermark, the join's and
 * silver's), rows on window starts and ends (5 and 30 minutes), duplicate ids inside a round,
 * within the watermark and outside it, session gaps of exactly 2 minutes and 2 minutes + 1 ms, buys
 * exactly at, 5 minutes after, 1 ms before and 5 minutes + 1 ms after a view, views whose range
 * ends exactly at the next watermark, a view landed twice, buys that lag behind views (the join's
 * watermark is the smaller of the two), invalid rows (amount null or negative) with the newest
 * timestamp, a few timestamps with microseconds, a few null fields, and rounds that move the
 * watermark a lot, a little, not at all, or land nothing. A few hundred rows per round.
 *
 * <p>Amounts are multiples of 0.25, exact in binary, so sums do not depend on the order in which an
 * engine adds them: a difference in {@code amount} is a difference in rows, not in rounding order.
 *
 * <p>Files are written as Spark's JSON writer (and the project's {@code EventFiles}) write them:
 * {@code batch_<round>/part-0000k-<uuid>-c000.json}, one JSON line per event, fields in schema
 * order, null fields left out, timestamps {@code yyyy-MM-dd'T'HH:mm:ss.SSS'Z'} (six digits when the
 * value has microseconds), beside an empty {@code _SUCCESS}; a batch folder appears whole (renamed
 * into place).
 */
final class EdgeGenerator {

    /**
     * One row of the landing folder; any field may be null. With {@code raw}, the line is that
     * text, and the fields are the row Spark reads from it (issue 37: a line that is not clean, a
     * double written otherwise).
     */
    record Ev(Long id, Integer user, String type, Instant ts, Double amount, String raw) {

        Ev(Long id, Integer user, String type, Instant ts, Double amount) {
            this(id, user, type, ts, amount, null);
        }

        Ev withTs(Instant t) {
            return new Ev(id, user, type, t, amount);
        }

        Ev withAmount(Double a) {
            return new Ev(id, user, type, ts, a);
        }
    }

    /** How a round moves the events' time. */
    enum Kind {
        START,
        BIG,
        SMALL,
        STILL,
        EMPTY
    }

    /** A round: its kind and its files (each a list of rows). */
    record Round(int number, Kind kind, List<List<Ev>> files) {
        int rows() {
            return files.stream().mapToInt(List::size).sum();
        }
    }

    static final Instant T0 = Instant.parse("2025-03-01T00:00:00Z");
    static final long MS = 1;
    static final long SECOND = 1000;
    static final long MINUTE = 60 * SECOND;
    static final Duration DELAY = Duration.ofMinutes(10);

    private static final String[] TYPES = {"view", "view", "view", "buy", "buy", "click", "click"};

    private final long seed;
    private final Random random;
    private final List<Ev> history = new ArrayList<>();
    private long nextId = 0;
    // The newest event time so far: of all rows, of views, of buys, of valid amounts (ms since T0).
    private long maxAll = Long.MIN_VALUE;
    private long maxView = Long.MIN_VALUE;
    private long maxBuy = Long.MIN_VALUE;
    private long maxValid = Long.MIN_VALUE;

    EdgeGenerator(long seed) {
        this.seed = seed;
        this.random = new Random(seed);
    }

    /** {@code n} rounds for the seed; the same seed always gives the same rounds. */
    static List<Round> rounds(long seed, int n) {
        EdgeGenerator g = new EdgeGenerator(seed);
        List<Kind> kinds = g.kinds(n);
        List<Round> rounds = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rounds.add(g.round(i + 1, kinds.get(i)));
        }
        return rounds;
    }

    /**
     * The first round starts the time; then every kind at least once (from 5 rounds on), in a
     * seeded order.
     */
    private List<Kind> kinds(int n) {
        List<Kind> later = new ArrayList<>();
        List<Kind> cycle = List.of(Kind.BIG, Kind.STILL, Kind.EMPTY, Kind.SMALL);
        while (later.size() < n - 1) {
            List<Kind> shuffled = new ArrayList<>(cycle);
            Collections.shuffle(shuffled, random);
            later.addAll(shuffled);
        }
        List<Kind> kinds = new ArrayList<>();
        kinds.add(Kind.START);
        kinds.addAll(later.subList(0, n - 1));
        // A round with rows always follows an empty one: the rows after a round that landed
        // nothing meet the watermark that round left.
        if (n >= 3 && kinds.get(n - 1) == Kind.EMPTY) {
            Collections.swap(kinds, n - 1, n - 2);
        }
        return kinds;
    }

    private Round round(int number, Kind kind) {
        if (kind == Kind.EMPTY) {
            return new Round(number, kind, List.of());
        }
        List<Ev> rows = new ArrayList<>();
        boolean started = maxAll != Long.MIN_VALUE;
        // The watermarks in force during this round (Spark: the previous round's maxima - 10 min).
        long w = started ? maxAll - DELAY.toMillis() : Long.MIN_VALUE;
        long wJoin =
                maxView != Long.MIN_VALUE && maxBuy != Long.MIN_VALUE
                        ? Math.min(maxView, maxBuy) - DELAY.toMillis()
                        : Long.MIN_VALUE;
        long wValid = maxValid != Long.MIN_VALUE ? maxValid - DELAY.toMillis() : Long.MIN_VALUE;

        // The round's newest time; BIG sometimes ends exactly on a 30-minute boundary, so the next
        // round's watermark sits exactly on window ends.
        long newMax;
        switch (kind) {
            case START:
                newMax = (20 + random.nextInt(10)) * MINUTE;
                break;
            case BIG:
                newMax = maxAll + (20 + random.nextInt(25)) * MINUTE;
                break;
            case SMALL:
                newMax = maxAll + (1 + random.nextInt(4)) * MINUTE + random.nextInt(1000);
                break;
            default:
                newMax = maxAll;
                break;
        }
        if (kind == Kind.BIG && random.nextBoolean()) {
            newMax = (newMax / (30 * MINUTE) + 1) * 30 * MINUTE;
        }
        long lo = started ? Math.max(0, w - 3 * MINUTE) : 0;
        // Odd seeds (the build's default seed 1 among them) start without buys: the join's buy
        // side then has no watermark yet, and Spark holds the join's at its start (issue 13
        // point 5).
        boolean noBuys = kind == Kind.START && seed % 2 == 1;
        // Seeds 3, 7, ... land no buy for three rounds (issue 37): the join's watermark stays at
        // the epoch all that time, where rows before 1970 are still late.
        noBuys |= seed % 4 == 3 && number <= 3;
        // Buys lag behind views in some rounds: the join's watermark then follows the buys.
        boolean buysLag = kind == Kind.BIG && random.nextBoolean();
        long buyMax = buysLag ? newMax - 7 * MINUTE : newMax;

        // 1. The bulk: random rows between just below the watermark and the round's newest time.
        int bulk = 150 + random.nextInt(100);
        for (int i = 0; i < bulk; i++) {
            String type = TYPES[random.nextInt(TYPES.length)];
            long hi = type.equals("buy") ? buyMax : newMax;
            long t = lo + (long) (random.nextDouble() * Math.max(1, hi - lo));
            if (random.nextInt(3) > 0) {
                t = t / SECOND * SECOND; // most rows on whole seconds, as the course's feed
            }
            rows.add(event(type, t));
        }
        rows.add(event("click", newMax));
        rows.add(event("view", newMax));
        rows.add(event("buy", buyMax));

        // 2. Rows late by exactly the watermark and by a millisecond either side, of every type,
        // for the events' watermark, the join's and silver's.
        for (long mark : new long[] {w, wJoin, wValid}) {
            if (mark == Long.MIN_VALUE || mark < 0) {
                continue;
            }
            for (long d : new long[] {-MS, 0, MS}) {
                for (String type : new String[] {"view", "buy", "click"}) {
                    rows.add(event(type, mark + d));
                }
            }
            // a session that ends exactly at the watermark, and one a millisecond later
            rows.add(event("click", mark - 2 * MINUTE));
            rows.add(event("click", mark - 2 * MINUTE + MS));
        }

        // 3. Rows on window starts and ends (5-minute and 30-minute boundaries), a millisecond
        // either side, around the watermark and the newest time.
        for (long b = ((started ? w : 0) - 10 * MINUTE) / (5 * MINUTE) * 5 * MINUTE;
                b <= newMax;
                b += 5 * MINUTE) {
            if (b < 0 || random.nextInt(3) == 0) {
                continue;
            }
            for (long d : new long[] {-MS, 0, MS}) {
                rows.add(event(TYPES[random.nextInt(TYPES.length)], b + d));
            }
        }

        // 4. Sessions: chains of one user's events exactly 2 minutes apart, then 2 minutes + 1 ms.
        for (int s = 0; s < 2; s++) {
            int user = 1 + random.nextInt(10);
            long t = Math.max(0, newMax - (6 + random.nextInt(10)) * MINUTE);
            long[] gaps = {2 * MINUTE, 2 * MINUTE, 2 * MINUTE + MS, 2 * MINUTE, 2 * MINUTE + MS};
            for (long gap : gaps) {
                if (t > newMax) {
                    break;
                }
                rows.add(event(user, "click", t));
                t += gap;
            }
        }

        // 5. Views and buys of one user: a buy exactly at the view, 5 minutes after it, 1 ms
        // before it, 5 minutes + 1 ms after it; a view landed twice; a view whose range ends
        // exactly at the watermark the round will leave (its null row is due strictly after).
        for (int j = 0; j < 3; j++) {
            int user = 11 + random.nextInt(4); // users the bulk does not use: clean matches
            long tv = Math.max(0, Math.min(buyMax, newMax) - (6 + random.nextInt(8)) * MINUTE);
            Ev view = event(user, "view", tv);
            rows.add(view);
            long[] offsets = {0, 5 * MINUTE, -MS, 5 * MINUTE + MS};
            long off = offsets[j % offsets.length];
            rows.add(event(user, "buy", tv + off));
            if (j == 1) {
                rows.add(event(user, "buy", tv + offsets[3]));
                rows.add(view); // the same view landed twice: two joined rows in Spark
            }
        }

        // 6. Duplicate ids: inside the round, from earlier rounds within the watermark (same and
        // new time), and from outside it (old time, and a new time after the old state expired).
        // Inside a round a duplicate is the same row: which of two different rows with one id a
        // batch keeps depends on the order an engine reads them, in Spark too.
        int inRound = rows.size();
        for (int i = 0; i < 4; i++) {
            rows.add(rows.get(random.nextInt(inRound)));
        }
        // One row per id: two different rows with one id in one round would make the kept one
        // depend on read order.
        Map<Long, Ev> recent = new LinkedHashMap<>();
        Map<Long, Ev> old = new LinkedHashMap<>();
        for (Ev e : history) {
            if (e.ts() != null && e.id() != null) {
                (started && millis(e.ts()) > w ? recent : old).putIfAbsent(e.id(), e);
            }
        }
        List<Ev> recentPicks = new ArrayList<>(recent.values());
        Collections.shuffle(recentPicks, random);
        for (int i = 0; i < Math.min(4, recentPicks.size()); i++) {
            Ev e = recentPicks.get(i);
            rows.add(
                    i == 2
                            ? e.withAmount(quarter())
                            : i == 3
                                    ? e.withTs(
                                            at(
                                                    Math.max(
                                                            millis(e.ts()),
                                                            newMax - random.nextInt(5) * MINUTE)))
                                    : e);
        }
        List<Ev> oldPicks = new ArrayList<>(old.values());
        Collections.shuffle(oldPicks, random);
        for (int i = 0; i < Math.min(3, oldPicks.size()); i++) {
            Ev e = oldPicks.get(i);
            rows.add(i == 2 ? e.withTs(at(newMax - random.nextInt(3) * MINUTE)) : e);
        }

        // 7. Invalid rows (amount null or negative) with the newest timestamp of all: they move
        // the events' watermark, not silver's.
        int invalid = 1 + random.nextInt(3);
        for (int i = 0; i < invalid; i++) {
            Ev e = event(TYPES[random.nextInt(TYPES.length)], newMax + (1 + i) * MINUTE);
            rows.add(e.withAmount(i % 2 == 0 ? null : -quarter() - 0.25));
        }

        // 8. Microseconds, away from the edges (Spark's TIMESTAMP keeps them).
        for (int i = 0; i < 2; i++) {
            long t = lo + (long) (random.nextDouble() * Math.max(1, newMax - lo));
            Ev e = event(TYPES[random.nextInt(TYPES.length)], t / SECOND * SECOND + 250);
            rows.add(e.withTs(e.ts().plusNanos(123_000)));
        }

        // 8b. Microsecond edges (issue 13 point 6): Spark compares event time in microseconds with
        // the watermark in milliseconds times 1000. Rows one microsecond either side of the
        // events' watermark (at it: late; after it: on time), of a 5-minute window end and of a
        // session gap ending at the watermark, and a duplicate id half a millisecond later.
        if (started && w >= 0) {
            for (String type : new String[] {"view", "buy", "click"}) {
                rows.add(event(type, w).withTs(at(w).minusNanos(1000)));
                rows.add(event(type, w).withTs(at(w).plusNanos(1000)));
            }
            rows.add(event("click", w).withTs(at(w - 2 * MINUTE).plusNanos(1000)));
            long end = (newMax / (5 * MINUTE)) * 5 * MINUTE;
            if (end > w) {
                rows.add(event("view", end).withTs(at(end).minusNanos(1000)));
                rows.add(event("view", end).withTs(at(end).plusNanos(1000)));
            }
        }
        if (recentPicks.size() > 4) {
            // An id this round has no other row of (the picks above took the first four).
            Ev e = recentPicks.get(4);
            rows.add(e.withTs(e.ts().plusNanos(500_000)));
        }

        // 8c. Sessions and the join's range at the microsecond (issue 13): one user's rows 0.5 ms
        // less and 0.5 ms more than one gap apart within the same milliseconds (Spark merges the
        // first pair only), and exactly one gap apart to the microsecond (merged); a buy exactly
        // 5 minutes after a view to the microsecond (joined), one 1 us later and one 1 us before
        // the view in its millisecond (not joined), and a view 1 us after a buy's 5-minute
        // start (joined). Users of their own per round and pair (from 100), so that no other row
        // joins or bridges them.
        long tm = Math.max(0, newMax - 6 * MINUTE);
        long[][] pairs = {{700, 200}, {200, 700}, {300, 300}};
        for (int i = 0; i < pairs.length; i++) {
            long t = tm + i * 10 * SECOND;
            int user = 100 + 5 * number + i;
            rows.add(event(user, "click", t).withTs(at(t).plusNanos(pairs[i][0] * 1000)));
            rows.add(
                    event(user, "click", t + 2 * MINUTE)
                            .withTs(at(t + 2 * MINUTE).plusNanos(pairs[i][1] * 1000)));
        }
        long tv = Math.max(0, Math.min(buyMax, newMax) - 7 * MINUTE);
        int viewFirst = 100 + 5 * number + 3;
        rows.add(event(viewFirst, "view", tv).withTs(at(tv).plusNanos(123_000)));
        for (long us : new long[] {123, 124}) {
            rows.add(
                    event(viewFirst, "buy", tv + 5 * MINUTE)
                            .withTs(at(tv + 5 * MINUTE).plusNanos(us * 1000)));
        }
        rows.add(event(viewFirst, "buy", tv).withTs(at(tv).plusNanos(122_000)));
        int buyFirst = 100 + 5 * number + 4;
        rows.add(
                event(buyFirst, "buy", tv + 5 * MINUTE)
                        .withTs(at(tv + 5 * MINUTE).plusNanos(500_000)));
        rows.add(event(buyFirst, "view", tv).withTs(at(tv).plusNanos(501_000)));
        rows.add(event(buyFirst, "view", tv).withTs(at(tv).plusNanos(499_000)));

        // 9. Null fields: a view without a user, a row without a type, one without a time.
        if (random.nextBoolean()) {
            rows.add(new Ev(nextId++, null, "view", at(newMax - 3 * MINUTE), quarter()));
        }
        if (random.nextBoolean()) {
            rows.add(
                    new Ev(
                            nextId++,
                            1 + random.nextInt(10),
                            null,
                            at(newMax - 4 * MINUTE),
                            quarter()));
        }
        if (number % 2 == 0) {
            rows.add(new Ev(nextId++, 1 + random.nextInt(10), "click", null, quarter()));
        }

        // 11. Issue 37: doubles as Spark writes them, rows at and before the epoch, lines that are
        // not clean, and the extreme ids (OffTheEdges).
        OffTheEdges edges = new OffTheEdges(random, number, () -> nextId++);
        rows.addAll(edges.doubles(newMax));
        rows.addAll(edges.atTheEpoch());
        rows.addAll(edges.notClean(newMax, kind != Kind.STILL));
        rows.addAll(edges.extremeKeys(Math.min(buyMax, newMax)));

        if (noBuys) {
            rows.replaceAll(
                    e ->
                            "buy".equals(e.type())
                                    ? new Ev(e.id(), e.user(), "click", e.ts(), e.amount())
                                    : e);
        }

        if (kind == Kind.STILL) {
            rows.replaceAll(this::stillAt);
        }

        // 10. Views without a buy whose range ends exactly at the join's watermark after this
        // round, and 1 ms before it: Spark emits the null row only once the watermark is strictly
        // past the range's end.
        {
            long views = maxView;
            long buys = maxBuy;
            for (Ev e : rows) {
                if (e.ts() != null && "view".equals(e.type())) {
                    views = Math.max(views, millis(e.ts()));
                }
                if (e.ts() != null && "buy".equals(e.type())) {
                    buys = Math.max(buys, millis(e.ts()));
                }
            }
            boolean both = views != Long.MIN_VALUE && buys != Long.MIN_VALUE;
            long nextWatermark = both ? Math.min(views, buys) - DELAY.toMillis() : Long.MIN_VALUE;
            int user = 15 + random.nextInt(3);
            if (both && nextWatermark - 5 * MINUTE - MS >= 0) {
                Ev lonely = event(user, "view", nextWatermark - 5 * MINUTE);
                rows.add(lonely);
                if (random.nextBoolean()) {
                    rows.add(lonely); // landed twice, no buy: two null rows in Spark
                }
                rows.add(event(user + 3, "view", nextWatermark - 5 * MINUTE - MS));
            }
        }

        Collections.shuffle(rows, random);
        for (Ev e : rows) {
            history.add(e);
            if (e.ts() == null) {
                continue;
            }
            long t = millis(e.ts());
            maxAll = Math.max(maxAll, t);
            if ("view".equals(e.type())) {
                maxView = Math.max(maxView, t);
            }
            if ("buy".equals(e.type())) {
                maxBuy = Math.max(maxBuy, t);
            }
            if (e.amount() != null && e.amount() >= 0) {
                maxValid = Math.max(maxValid, t);
            }
        }
        // One to three files: rows of a round are read by several readers at parallelism > 1.
        // Of clearly different sizes (rows in the ratio 1 : 4 : 9), so that the order Spark's
        // scan reads them in (largest first) is the same for the landed JSON and for bronze's
        // files made of it: which copy of an id dedup keeps follows it (issue 37 point 4).
        int fileCount = 1 + random.nextInt(3);
        // The sizes and the copies below draw from a generator of their own: the seed's other
        // draws, and with them every later round, stay what they were before they came.
        Random sizes = new Random(seed * 1_000_003L + number);
        List<List<Ev>> files = new ArrayList<>();
        for (int f = 0; f < fileCount; f++) {
            files.add(new ArrayList<>());
        }
        List<Ev> nullIds = new ArrayList<>();
        for (Ev e : rows) {
            if (e.id() == null) {
                nullIds.add(e);
            } else {
                random.nextInt(fileCount); // the file it went to before
                files.get(OffTheEdges.weightedFile(sizes, fileCount)).add(e);
            }
        }
        // Rows without an event_id are one key for dedup, and differ: all in one file, in order,
        // so that which one a batch keeps does not depend on the order files are read in.
        files.get(0).addAll(nullIds);
        edges.otherCopies(files, sizes);
        return new Round(number, kind, files);
    }

    /**
     * A row of a round that moves no watermark: no later than the newest time of all rows, of its
     * type (views, buys) and, with a valid amount, of valid amounts so far. A buy before any buy
     * was landed becomes a click, which gives the join's buy side no watermark yet.
     */
    private Ev stillAt(Ev e) {
        if (e.ts() == null) {
            return e;
        }
        if ("buy".equals(e.type()) && maxBuy == Long.MIN_VALUE) {
            e = new Ev(e.id(), e.user(), "click", e.ts(), e.amount());
        }
        long cap = maxAll;
        if ("view".equals(e.type())) {
            cap = Math.min(cap, maxView);
        } else if ("buy".equals(e.type())) {
            cap = Math.min(cap, maxBuy);
        }
        if (e.amount() != null && e.amount() >= 0) {
            cap = Math.min(cap, maxValid);
        }
        return millis(e.ts()) > cap ? e.withTs(at(cap)) : e;
    }

    private double quarter() {
        return random.nextInt(400) * 0.25;
    }

    private Ev event(String type, long t) {
        return event(1 + random.nextInt(10), type, t);
    }

    private Ev event(int user, String type, long t) {
        return new Ev(nextId++, user, type, at(Math.max(0, t)), quarter());
    }

    static Instant at(long millisSinceT0) {
        return T0.plusMillis(millisSinceT0);
    }

    static long millis(Instant t) {
        return Duration.between(T0, t).toMillis();
    }

    // ---------------------------------------------------------------- files

    private static final DateTimeFormatter MILLIS =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter MICROS =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

    /** One JSON line as Spark's writer makes it: schema order, nulls left out; or its raw text. */
    static String json(Ev e) {
        if (e.raw() != null) {
            return e.raw();
        }
        StringBuilder sb = new StringBuilder("{");
        if (e.id() != null) {
            field(sb, "event_id").append(e.id());
        }
        if (e.user() != null) {
            field(sb, "user_id").append(e.user());
        }
        if (e.type() != null) {
            field(sb, "event_type").append('"').append(e.type()).append('"');
        }
        if (e.ts() != null) {
            field(sb, "event_ts")
                    .append('"')
                    .append((e.ts().getNano() % 1_000_000 == 0 ? MILLIS : MICROS).format(e.ts()))
                    .append('"');
        }
        if (e.amount() != null) {
            field(sb, "amount").append(e.amount());
        }
        return sb.append('}').toString();
    }

    private static StringBuilder field(StringBuilder sb, String name) {
        if (sb.length() > 1) {
            sb.append(',');
        }
        return sb.append('"').append(name).append("\":");
    }

    /**
     * Lands a round in {@code <events>/batch_<round>/}: the same file names for the same seed and
     * round, in every folder it is landed in. Written under a hidden name and renamed into place.
     */
    static void land(Path events, long seed, Round round) {
        if (round.files().isEmpty()) {
            return;
        }
        Path target = events.resolve("batch_" + round.number());
        Path staging = events.resolve("_staging-batch_" + round.number());
        try {
            Files.createDirectories(staging);
            for (int f = 0; f < round.files().size(); f++) {
                UUID uuid =
                        UUID.nameUUIDFromBytes(
                                (seed + "/" + round.number() + "/" + f)
                                        .getBytes(StandardCharsets.UTF_8));
                Path part = staging.resolve(String.format("part-%05d-%s-c000.json", f, uuid));
                try (BufferedWriter out = Files.newBufferedWriter(part, StandardCharsets.UTF_8)) {
                    for (Ev e : round.files().get(f)) {
                        out.write(json(e));
                        out.write('\n');
                    }
                }
            }
            Files.createFile(staging.resolve("_SUCCESS"));
            Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot land round " + round.number() + " in " + target, e);
        }
    }
}
