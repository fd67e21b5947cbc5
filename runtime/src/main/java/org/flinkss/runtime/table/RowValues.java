package org.flinkss.runtime.table;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;

/**
 * Converts rows to plain Java values, orders them, and prints them as the course's display does.
 */
public final class RowValues {

    // The proleptic year (u), as Spark's formatters (they turn a pattern's y into u): year -1 is
    // -0001, where y (year of era) wrote 0002, the year 2 BC.
    private static final DateTimeFormatter DISPLAY =
            DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter ISO =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter ISO_MICROS =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

    /** Every column in order, nulls first. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static final Comparator<List<Object>> ORDER =
            (a, b) -> {
                for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
                    Object x = a.get(i);
                    Object y = b.get(i);
                    if (x == y) {
                        continue;
                    }
                    if (x == null) {
                        return -1;
                    }
                    if (y == null) {
                        return 1;
                    }
                    int c = ((Comparable) x).compareTo(y);
                    if (c != 0) {
                        return c;
                    }
                }
                return Integer.compare(a.size(), b.size());
            };

    private RowValues() {}

    public static List<Object> toList(RowData row, RowType type) {
        List<Object> values = new ArrayList<>(type.getFieldCount());
        for (int i = 0; i < type.getFieldCount(); i++) {
            values.add(get(row, i, type.getTypeAt(i)));
        }
        return values;
    }

    public static Object get(RowData row, int i, LogicalType type) {
        if (row.isNullAt(i)) {
            return null;
        }
        switch (type.getTypeRoot()) {
            case BIGINT:
                return row.getLong(i);
            case INTEGER:
                return row.getInt(i);
            case SMALLINT:
                return row.getShort(i);
            case TINYINT:
                return row.getByte(i);
            case BOOLEAN:
                return row.getBoolean(i);
            case DOUBLE:
                return row.getDouble(i);
            case FLOAT:
                return row.getFloat(i);
            case CHAR:
            case VARCHAR:
                return row.getString(i).toString();
            case VARBINARY:
            case BINARY:
                return HexFormat.of().formatHex(row.getBinary(i));
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                // At the column's precision: a binary row stores TIMESTAMP(3) and (6) differently.
                return row.getTimestamp(i, LogicalTypeChecks.getPrecision(type)).toInstant();
            default:
                throw new IllegalArgumentException("unsupported column type " + type);
        }
    }

    /**
     * A value as the course's {@code display} shows it; a timestamp as Spark's {@code show()} casts
     * it to text: {@code 2025-03-01 00:00:00}, with the fraction of a second when there is one,
     * trailing zeros dropped ({@code .12}, {@code .123456}).
     */
    public static String display(Object v) {
        if (v == null) {
            return "null";
        }
        if (v instanceof Instant) {
            Instant t = (Instant) v;
            String text = DISPLAY.format(t);
            int micros = t.getNano() / 1000;
            if (micros == 0) {
                return text;
            }
            String fraction = String.format("%06d", micros).replaceAll("0+$", "");
            return text + "." + fraction;
        }
        return v.toString();
    }

    /**
     * A value in CSV: timestamps in ISO-8601 UTC ({@code .SSS}, or {@code .SSSSSS} when the value
     * has microseconds: Spark's CSV writer would cut them, an export keeps them), text quoted when
     * it must be.
     */
    public static String csv(Object v) {
        if (v == null) {
            return "";
        }
        if (v instanceof Instant) {
            Instant t = (Instant) v;
            return (t.getNano() % 1_000_000 == 0 ? ISO : ISO_MICROS).format(t);
        }
        String s = v.toString();
        if (s.contains(",") || s.contains("\"") || s.contains("\n") || s.contains("\r")) {
            return '"' + s.replace("\"", "\"\"") + '"';
        }
        return s;
    }

    /** A grid like Spark's {@code show()}: a header, a rule, one line a row. */
    public static String grid(List<String> header, List<List<Object>> rows) {
        int[] width = new int[header.size()];
        for (int i = 0; i < header.size(); i++) {
            width[i] = header.get(i).length();
        }
        List<List<String>> cells = new ArrayList<>();
        for (List<Object> row : rows) {
            List<String> line = new ArrayList<>();
            for (int i = 0; i < row.size(); i++) {
                String s = display(row.get(i));
                width[i] = Math.max(width[i], s.length());
                line.add(s);
            }
            cells.add(line);
        }
        StringBuilder sb = new StringBuilder();
        StringBuilder rule = new StringBuilder("+");
        for (int w : width) {
            rule.append("-".repeat(w + 2)).append('+');
        }
        sb.append(rule).append('\n');
        appendLine(sb, header, width);
        sb.append(rule).append('\n');
        for (List<String> line : cells) {
            appendLine(sb, line, width);
        }
        sb.append(rule).append('\n');
        return sb.toString();
    }

    private static void appendLine(StringBuilder sb, List<String> cells, int[] width) {
        sb.append('|');
        for (int i = 0; i < cells.size(); i++) {
            sb.append(' ').append(String.format("%-" + width[i] + "s", cells.get(i))).append(" |");
        }
        sb.append('\n');
    }
}
