package org.flinkss.sparkdiff;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Issue 35 point 2: the view-then-buy rounds of one matrix cell again under {@code
 * --watermark-policy max}, against the oracle's same joins under {@code
 * spark.sql.streaming.multipleWatermarkPolicy=max} ({@code view_then_buy_max}, {@code
 * view_then_buy_left_max}), in the Spark session the matrix already uses.
 *
 * <p>The project's max runs need their own checkpoints and tables, so they have a base of their own
 * beside the cell's ({@code <cell>-max}): the same rounds landed, bronze, then both joins with
 * {@code --watermark-policy max}. The rounds must also show min and max apart, on Spark's side and
 * the project's, so that the comparison cannot pass because max changed nothing: the odd seeds
 * start without buys, so the buys' watermark node holds min at the epoch while max follows the
 * views.
 */
final class MaxPolicyRounds {

    static final List<DiffQuery> JOINS =
            List.of(DiffQuery.VIEW_THEN_BUY, DiffQuery.VIEW_THEN_BUY_OUTER);

    /** The rounds (by side, table and round) whose min and max tables differ. */
    private static final Map<String, Boolean> APART = new ConcurrentHashMap<>();

    private MaxPolicyRounds() {}

    /** Whether the matrix runs the joins (and so their max rounds). */
    static boolean applies() {
        return DiffQuery.selected().containsAll(JOINS);
    }

    static Path base(Path cellBase) {
        return cellBase.resolveSibling(cellBase.getFileName() + "-max");
    }

    /** The oracle's table of {@code join} under max. */
    static String maxTable(DiffQuery join) {
        return join.table + "_max";
    }

    /** Lands {@code round} in the max base and runs bronze and both joins under max. */
    static void run(Path cellBase, long seed, EdgeGenerator.Round round, String api, int p)
            throws IOException {
        Path base = base(cellBase);
        Files.createDirectories(base.resolve("events"));
        EdgeGenerator.land(base.resolve("events"), seed, round);
        ProjectRunner.run(base, DiffQuery.BRONZE, api, p);
        for (DiffQuery join : JOINS) {
            ProjectRunner.run(base, join, api, p, "--watermark-policy", "max");
        }
    }

    /**
     * Each join's max table against Spark's, as the matrix compares (labelled {@code <api> max});
     * notes whether min and max differ on either side.
     */
    static List<TableDiff> compare(
            Path cellBase, Path sparkOut, long seed, int round, String api, int p)
            throws IOException {
        List<TableDiff> diffs = new ArrayList<>();
        for (DiffQuery join : JOINS) {
            List<String> sparkMax = lines(sparkOut.resolve(maxTable(join) + ".csv"));
            List<String> flinkMax = ProjectRunner.export(base(cellBase), join.table);
            diffs.add(TableDiff.of(seed, round, join, api + " max", p, sparkMax, flinkMax));
            List<String> sparkMin = lines(sparkOut.resolve(join.table + ".csv"));
            List<String> flinkMin = ProjectRunner.export(cellBase, join.table);
            APART.merge("spark", differ(sparkMin, sparkMax), Boolean::logicalOr);
            APART.merge("project", differ(flinkMin, flinkMax), Boolean::logicalOr);
        }
        return diffs;
    }

    /** Whether some round showed min and max apart on {@code side} (spark or project). */
    static boolean apart(String side) {
        return APART.getOrDefault(side, false);
    }

    private static boolean differ(List<String> a, List<String> b) {
        return !new HashSet<>(a).equals(new HashSet<>(b));
    }

    private static List<String> lines(Path file) throws IOException {
        return Files.readAllLines(file, StandardCharsets.UTF_8);
    }
}
