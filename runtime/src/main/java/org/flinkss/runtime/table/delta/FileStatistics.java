package org.flinkss.runtime.table.delta;

import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.statistics.DataFileStatistics;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;

import java.util.HashMap;
import java.util.Map;

/**
 * A data file's footer statistics ({@link DataFile}) as Kernel's {@link DataFileStatistics}, the
 * {@code stats} of its {@code add} action: each value typed as its column, and only the columns
 * whose types Delta keeps statistics of here.
 */
final class FileStatistics {

    private FileStatistics() {}

    static DataFileStatistics of(DataFile file, StructType schema) {
        Map<Column, Literal> min = new HashMap<>();
        Map<Column, Literal> max = new HashMap<>();
        Map<Column, Long> nulls = new HashMap<>();
        for (StructField field : schema.fields()) {
            String name = field.getName();
            Literal lo = literal(field.getDataType(), file.minValues().get(name));
            Literal hi = literal(field.getDataType(), file.maxValues().get(name));
            if (lo != null && hi != null) {
                min.put(new Column(name), lo);
                max.put(new Column(name), hi);
            }
            Long n = file.nullCounts().get(name);
            if (n != null) {
                nulls.put(new Column(name), n);
            }
        }
        return new DataFileStatistics(file.numRecords(), min, max, nulls);
    }

    private static Literal literal(DataType type, Object value) {
        if (value == null) {
            return null;
        }
        if (type instanceof LongType && value instanceof Number) {
            return Literal.ofLong(((Number) value).longValue());
        } else if (type instanceof IntegerType && value instanceof Integer) {
            return Literal.ofInt((Integer) value);
        } else if (type instanceof DateType && value instanceof Integer) {
            return Literal.ofDate((Integer) value);
        } else if (type instanceof DoubleType && value instanceof Double) {
            return Literal.ofDouble((Double) value);
        } else if (type instanceof StringType && value instanceof String) {
            return Literal.ofString((String) value);
        }
        return null;
    }
}
