package org.flinkss.course.event;

import org.apache.flink.table.functions.ScalarFunction;

/**
 * Spark's {@code hash(id, literal)} as a Flink SQL function: {@code spark_hash(BIGINT, INT) RETURNS
 * INT}. Register it with {@code tEnv.createTemporarySystemFunction("spark_hash",
 * SparkHashFunction.class)}.
 */
public class SparkHashFunction extends ScalarFunction {

    private static final long serialVersionUID = 1L;

    /** Spark skips a null column: it leaves the running hash (the next column's seed) as it is. */
    public Integer eval(Long id, Integer literal) {
        if (id != null && literal != null) {
            return SparkHash.hash(id, literal);
        }
        int h = SparkHash.SEED;
        if (id != null) {
            h = SparkHash.hashLong(id, h);
        }
        if (literal != null) {
            h = SparkHash.hashInt(literal, h);
        }
        return h;
    }
}
