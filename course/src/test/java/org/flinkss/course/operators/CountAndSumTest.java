package org.flinkss.course.operators;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code round(x, 2)} as Spark rounds a double: half up on its decimal text. */
class CountAndSumTest {

    /** Spark's rule, as its {@code Round} evaluates it: no shortcut. */
    private static double spark(double value) {
        if (!Double.isFinite(value)) {
            return value;
        }
        return BigDecimal.valueOf(value).setScale(2, RoundingMode.HALF_UP).doubleValue();
    }

    private static void assertSame(double value) {
        assertThat(Double.doubleToRawLongBits(CountAndSum.round2(value)))
                .as("round2(%s) = %s, Spark's %s", value, CountAndSum.round2(value), spark(value))
                .isEqualTo(Double.doubleToRawLongBits(spark(value)));
    }

    @Test
    void tiesInTheDecimalTextRoundUpAwayFromZeroWhereBinaryWouldNot() {
        // 1.005 is 1.00499999999999989... in binary: Math.round(1.005 * 100) gives 100.
        assertThat(CountAndSum.round2(1.005)).isEqualTo(1.01);
        assertThat(CountAndSum.round2(-1.005)).isEqualTo(-1.01);
        assertThat(CountAndSum.round2(2.675)).isEqualTo(2.68);
        assertThat(CountAndSum.round2(0.125)).isEqualTo(0.13);
        assertThat(CountAndSum.round2(1234.565)).isEqualTo(1234.57);
    }

    @Test
    void aNegativeValueThatRoundsToZeroIsPositiveZero() {
        assertSame(-0.001);
        assertSame(-0.004999);
        assertSame(-0.0);
        assertThat(Double.doubleToRawLongBits(CountAndSum.round2(-0.001))).isZero();
    }

    @Test
    void specialAndLargeValuesKeepSparksResult() {
        for (double v :
                new double[] {
                    Double.NaN,
                    Double.POSITIVE_INFINITY,
                    Double.NEGATIVE_INFINITY,
                    Double.MIN_VALUE,
                    Double.MAX_VALUE,
                    1e7,
                    -1e7 - 0.005,
                    9_999_999.995,
                    123_456_789.125,
                    4.35,
                    0.0
                }) {
            assertSame(v);
        }
    }

    @Test
    void aMillionRandomValuesAgreeWithSparksRuleBitForBit() {
        SplittableRandom random = new SplittableRandom(11);
        for (int i = 0; i < 250_000; i++) {
            // Four a round: sums of amounts (cents), exact thousandths (ties), and doubles of
            // every magnitude around the fast path's bound.
            double cents = random.nextLong(-10_000_000_000L, 10_000_000_000L) / 100.0;
            double thousandths = random.nextLong(-2_000_000_000L, 2_000_000_000L) / 1000.0;
            double sum = cents + random.nextInt(1, 500) * 0.01;
            double any = (random.nextDouble() - 0.5) * Math.pow(10, random.nextInt(-6, 12));
            assertSame(cents);
            assertSame(thousandths);
            assertSame(sum);
            assertSame(any);
        }
    }
}
