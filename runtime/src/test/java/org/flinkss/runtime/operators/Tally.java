package org.flinkss.runtime.operators;

import org.apache.flink.api.common.functions.AggregateFunction;

/** The window tests' accumulator: {@code count(*)} and {@code sum(value)} of a window. */
public class Tally implements WindowAggregate.Ended {

    private static final long serialVersionUID = 1L;

    public long end;
    public long rows;
    public long sum;

    public Tally() {}

    @Override
    public long end() {
        return end;
    }

    @Override
    public void end(long newEnd) {
        end = newEnd;
    }

    /** Its aggregate function. */
    public static final class Function implements AggregateFunction<Reading, Tally, Tally> {
        private static final long serialVersionUID = 1L;

        @Override
        public Tally createAccumulator() {
            return new Tally();
        }

        @Override
        public Tally add(Reading row, Tally acc) {
            acc.rows++;
            acc.sum += row.value;
            return acc;
        }

        @Override
        public Tally getResult(Tally acc) {
            return acc;
        }

        @Override
        public Tally merge(Tally a, Tally b) {
            Tally m = new Tally();
            m.end = Math.max(a.end, b.end);
            m.rows = a.rows + b.rows;
            m.sum = a.sum + b.sum;
            return m;
        }
    }
}
