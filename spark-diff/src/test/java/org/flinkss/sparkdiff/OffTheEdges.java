package org.flinkss.sparkdiff;

import org.flinkss.sparkdiff.EdgeGenerator.Ev;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.LongSupplier;

/**
 * The rows of a round that issue 37 is about, each as Spark writes or reads it:
 *
 * <ul>
 *   <li>amounts as Spark's JSON writer writes doubles ({@code Double.toString}: {@code 1.0E15},
 *       {@code 1.0E-4}, ...) and {@code 2.5e-1} as other writers do; each in a group of its own
 *       (its own type and user), so that a sum holds one of them and no order of adding matters;
 *   <li>rows at and before the epoch, Spark's initial watermark: late in every round for dedup and
 *       the join, and for each window that ends at or before it;
 *   <li>lines that are not clean (a value of the wrong type, not JSON, cut short, an array of
 *       numbers, text after the object), with the row Spark's PERMISSIVE reader reads from each;
 *   <li>the extreme ids: event_id -2^63 beside a null one, and a buy of user -2^31 beside a view
 *       without a user;
 *   <li>two different copies of an id in one round: in two files of different sizes (Spark keeps
 *       the copy of the larger file) and twice in one file (Spark keeps the first).
 * </ul>
 */
final class OffTheEdges {

    private static final long MINUTE = 60_000;

    /** Doubles as text, as the line holds them. */
    static final List<String> DOUBLES =
            List.of(
                    "1.0E15",
                    "1.0E-4",
                    "1.23456789E7",
                    "0.30000000000000004",
                    "4.9E-324",
                    "2.5e-1",
                    "0.1234567890123456");

    private final Random random;
    private final int round;
    private final LongSupplier ids;

    OffTheEdges(Random random, int round, LongSupplier ids) {
        this.random = random;
        this.round = round;
        this.ids = ids;
    }

    /** One row per double, on time, its type and user its own. */
    List<Ev> doubles(long newMax) {
        List<Ev> rows = new ArrayList<>();
        for (int k = 0; k < DOUBLES.size(); k++) {
            String text = DOUBLES.get(k);
            long id = ids.getAsLong();
            int user = 1000 + 10 * round + k;
            String type = "double-" + k;
            Instant ts = EdgeGenerator.at(Math.max(0, newMax - (1 + random.nextInt(3)) * MINUTE));
            double amount = Double.parseDouble(text);
            Ev written = new Ev(id, user, type, ts, amount);
            // Double.toString is what Spark writes; any other text needs the line as it is.
            rows.add(
                    Double.toString(amount).equals(text)
                            ? written
                            : new Ev(
                                    id,
                                    user,
                                    type,
                                    ts,
                                    amount,
                                    EdgeGenerator.json(written)
                                            .replace(Double.toString(amount), text)));
        }
        return rows;
    }

    /**
     * Rows at and around the epoch (absolute times, not the round's): the epoch itself and before
     * it (late), a microsecond and a millisecond after it (on time for rows; their 5-minute window
     * has not ended), three minutes before it (the 10-minute sliding window [-5 min, 5 min) keeps
     * it), sessions of one row ending before and after it, and views and buys before it that would
     * join if they were on time.
     */
    List<Ev> atTheEpoch() {
        Instant epoch = Instant.EPOCH;
        int user = 2000 + 10 * round;
        List<Ev> rows = new ArrayList<>();
        rows.add(ev(user, "view", epoch));
        rows.add(ev(user, "click", epoch.minusMillis(1)));
        rows.add(ev(user, "click", epoch.plusNanos(1000)));
        rows.add(ev(user + 1, "click", epoch.plusMillis(1)));
        rows.add(ev(user + 2, "click", epoch.minusSeconds(180)));
        rows.add(ev(user + 3, "click", epoch.minusSeconds(420)));
        // Sessions of 2 minutes: [-3 min, -1 min) has ended at the epoch, [-1 min, 1 min) not.
        rows.add(ev(user + 4, "click", epoch.minusSeconds(180)));
        rows.add(ev(user + 5, "click", epoch.minusSeconds(60)));
        // A view and a buy 2 minutes later, before 1970: late, so they never join.
        rows.add(ev(user + 6, "view", epoch.minusSeconds(240)));
        rows.add(ev(user + 6, "buy", epoch.minusSeconds(120)));
        rows.add(ev(user + 7, "view", epoch.minusSeconds(30 * 86_400L)));
        return rows;
    }

    /**
     * Lines that are not clean, each with the row Spark 4.0.4 reads from it.
     *
     * @param rowsOfNulls with the lines that are not one JSON object: rows without an id or a time,
     *     which Spark's dedup forgets at the end of their batch; left out of rounds that move no
     *     watermark, where the Table API forgets them only at the next batch that moves it
     *     (docs/semantics.md)
     */
    List<Ev> notClean(long newMax, boolean rowsOfNulls) {
        Instant t = EdgeGenerator.at(Math.max(0, newMax - (2 + random.nextInt(3)) * MINUTE));
        String ts = "\"event_ts\":\"" + t + "\"";
        int user = 3000 + 10 * round;
        long a = ids.getAsLong();
        long b = ids.getAsLong();
        long c = ids.getAsLong();
        long d = ids.getAsLong();
        long e = ids.getAsLong();
        List<Ev> rows = new ArrayList<>();
        rows.add(
                new Ev(
                        a,
                        null,
                        "view",
                        t,
                        1.5,
                        "{\"event_id\":"
                                + a
                                + ",\"user_id\":\"u7\",\"event_type\":\"view\","
                                + ts
                                + ",\"amount\":1.5}"));
        rows.add(
                new Ev(
                        b,
                        user,
                        "click",
                        null,
                        2.5,
                        "{\"event_id\":"
                                + b
                                + ",\"user_id\":"
                                + user
                                + ",\"event_type\":\"click\",\"event_ts\":\"2025-02-30T00:00:00Z\","
                                + "\"amount\":2.5}"));
        rows.add(
                new Ev(
                        c,
                        user + 1,
                        "click",
                        t,
                        null,
                        "{\"event_id\":"
                                + c
                                + ",\"user_id\":"
                                + (user + 1)
                                + ",\"event_type\":\"click\","
                                + ts
                                + ",\"amount\":\"12.5\"}"));
        rows.add(
                new Ev(
                        d,
                        user + 2,
                        "click",
                        t,
                        0.5,
                        "{\"event_id\":"
                                + d
                                + ",\"user_id\":"
                                + (user + 2)
                                + ",\"event_type\":\"click\","
                                + ts
                                + ",\"amount\":0.5} trailing"));
        rows.add(new Ev(e, null, null, null, null, "[{\"event_id\":" + e + "}] and more"));
        // Rows without an event_id: one key for dedup, so the generator keeps them in one file.
        rows.add(
                new Ev(
                        null,
                        user + 3,
                        "view",
                        t,
                        1.0,
                        "{\"event_id\":1.5,\"user_id\":"
                                + (user + 3)
                                + ",\"event_type\":\"view\","
                                + ts
                                + ",\"amount\":1.0}"));
        if (rowsOfNulls) {
            rows.add(new Ev(null, null, null, null, null, "this is not json"));
            rows.add(new Ev(null, null, null, null, null, "{\"event_id\":7,\"user_id\":1"));
            rows.add(new Ev(null, null, null, null, null, "[1,2,3]"));
        }
        return rows;
    }

    /**
     * Issue 37 point 5: event_id -2^63 and a null one (two dedup keys), and a buy of user -2^31
     * after a view without a user (no join) and after a view of that user (a join).
     */
    List<Ev> extremeKeys(long latest) {
        Instant t = EdgeGenerator.at(Math.max(0, latest - (6 + random.nextInt(3)) * MINUTE));
        List<Ev> rows = new ArrayList<>();
        if (round == 1) {
            rows.add(new Ev(Long.MIN_VALUE, 1, "click", t, 1.0));
        }
        rows.add(new Ev(null, 2, "click", t, 2.0));
        rows.add(new Ev(ids.getAsLong(), null, "view", t, 3.0));
        rows.add(new Ev(ids.getAsLong(), Integer.MIN_VALUE, "view", t, 4.0));
        rows.add(new Ev(ids.getAsLong(), Integer.MIN_VALUE, "buy", t.plusSeconds(60), 5.0));
        return rows;
    }

    /**
     * The file of {@code fileCount} a row goes to: file {@code f} with weight {@code (f + 1)^2}, so
     * that a round's files differ clearly in size (rows 1 : 4 : 9).
     */
    static int weightedFile(Random random, int fileCount) {
        int total = 0;
        for (int f = 1; f <= fileCount; f++) {
            total += f * f;
        }
        int pick = random.nextInt(total);
        for (int f = 0; ; f++) {
            pick -= (f + 1) * (f + 1);
            if (pick < 0) {
                return f;
            }
        }
    }

    /**
     * Issue 37 point 4: another copy (another amount, the same time) of a few ids of the round:
     * with two files or more, up to three ids each get one in another file than theirs, at a random
     * line (Spark keeps the copy from the larger file: its scan reads a batch's files largest
     * first); and one id gets one later in its own file (Spark keeps the first). Only ids the round
     * holds once, with a time and a clean line, and not the doubles' groups, whose sums hold one
     * row each; an amount stays valid or invalid, so no watermark moves otherwise.
     */
    void otherCopies(List<List<Ev>> files, Random random) {
        Map<Long, Integer> count = new HashMap<>();
        for (List<Ev> file : files) {
            for (Ev e : file) {
                if (e.id() != null) {
                    count.merge(e.id(), 1, Integer::sum);
                }
            }
        }
        List<int[]> candidates = new ArrayList<>();
        for (int f = 0; f < files.size(); f++) {
            for (int i = 0; i < files.get(f).size(); i++) {
                Ev e = files.get(f).get(i);
                if (e.id() != null
                        && e.id() != Long.MIN_VALUE
                        && count.get(e.id()) == 1
                        && e.ts() != null
                        && e.raw() == null
                        && e.type() != null
                        && !e.type().startsWith("double-")) {
                    candidates.add(new int[] {f, i});
                }
            }
        }
        if (candidates.isEmpty()) {
            return;
        }
        List<Ev> copies = new ArrayList<>();
        List<Integer> targets = new ArrayList<>();
        int across = files.size() < 2 ? 0 : Math.min(3, candidates.size() - 1);
        for (int k = 0; k < across; k++) {
            int[] at = candidates.remove(random.nextInt(candidates.size()));
            int other = (at[0] + 1 + random.nextInt(files.size() - 1)) % files.size();
            copies.add(other(files.get(at[0]).get(at[1])));
            targets.add(other);
        }
        for (int k = 0; k < copies.size(); k++) {
            List<Ev> file = files.get(targets.get(k));
            file.add(random.nextInt(file.size() + 1), copies.get(k));
        }
        // Later in its own file: after the row, wherever the copies above went.
        int[] at = candidates.get(random.nextInt(candidates.size()));
        Ev row = files.get(at[0]).get(at[1]);
        List<Ev> file = files.get(at[0]);
        int index = file.indexOf(row);
        file.add(index + 1 + random.nextInt(file.size() - index), other(row));
    }

    /** Another copy of {@code e}: another amount, as valid or invalid as its own. */
    private static Ev other(Ev e) {
        Double a = e.amount();
        return e.withAmount(a == null ? -0.5 : a < 0 ? a - 0.25 : a + 0.25);
    }

    private Ev ev(int user, String type, Instant ts) {
        return new Ev(ids.getAsLong(), user, type, ts, 0.25 * (1 + random.nextInt(40)));
    }
}
