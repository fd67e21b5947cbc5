package org.flinkss.course.operators;

import org.apache.flink.api.common.functions.AggregateFunction;

import org.flinkss.course.event.Event;
import org.flinkss.runtime.operators.WindowAggregate;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * The course's aggregate: {@code count(*) AS events, round(sum(amount), 2) AS amount}. Null amounts
 * count as rows but add nothing, as Spark's {@code sum} ignores nulls.
 */
public final class CountAndSum implements WindowAggregate.Ended {

    private static final long serialVersionUID = 1L;

    public long end;
    public long events;
    public double amount;

    /** Spark's sum of only nulls is null. */
    public boolean hasAmount;

    public CountAndSum() {}

    @Override
    public long end() {
        return end;
    }

    @Override
    public void end(long newEnd) {
        end = newEnd;
    }

    /** {@code round(sum, 2)} as Spark rounds: half up on the decimal text of the double. */
    public Double roundedAmount() {
        return hasAmount ? round2(amount) : null;
    }

    public static double round2(double value) {
        if (!Double.isFinite(value)) {
            return value;
        }
        double magnitude = Math.abs(value);
        if (magnitude < FAST_BELOW) {
            // Hundredths in binary: within 1.6e-7 of the decimal text's (the text is within half
            // an ulp of the double, and so is the product), so away from a tie they round alike.
            double hundredths = magnitude * 100;
            double whole = Math.floor(hundredths);
            double fraction = hundredths - whole;
            if (Math.abs(fraction - 0.5) > TIE_MARGIN) {
                double rounded = fraction > 0.5 ? whole + 1 : whole;
                // A division of two exact integers is rounded once, as BigDecimal's doubleValue
                // is; a BigDecimal has no negative zero.
                return rounded == 0 ? 0.0 : Math.copySign(rounded / 100, value);
            }
        }
        return BigDecimal.valueOf(value).setScale(2, RoundingMode.HALF_UP).doubleValue();
    }

    /** Below this magnitude {@link #round2} may round in binary (see there). */
    private static final double FAST_BELOW = 1e7;

    /** How far from a tie the binary hundredths must be for {@link #round2} to round them. */
    private static final double TIE_MARGIN = 1e-6;

    /** Flink's aggregate function for it. */
    public static final class Function
            implements AggregateFunction<Event, CountAndSum, CountAndSum> {
        private static final long serialVersionUID = 1L;

        @Override
        public CountAndSum createAccumulator() {
            return new CountAndSum();
        }

        @Override
        public CountAndSum add(Event event, CountAndSum acc) {
            acc.events++;
            if (event.amount != null) {
                acc.amount += event.amount;
                acc.hasAmount = true;
            }
            return acc;
        }

        @Override
        public CountAndSum getResult(CountAndSum acc) {
            return acc;
        }

        @Override
        public CountAndSum merge(CountAndSum a, CountAndSum b) {
            CountAndSum m = new CountAndSum();
            m.end = Math.max(a.end, b.end);
            m.events = a.events + b.events;
            m.amount = a.amount + b.amount;
            m.hasAmount = a.hasAmount || b.hasAmount;
            return m;
        }
    }
}
