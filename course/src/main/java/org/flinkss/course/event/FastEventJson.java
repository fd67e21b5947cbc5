package org.flinkss.course.event;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * {@link EventJson#parse} for the lines that the course's writers produce, read straight from a
 * line's UTF-8 bytes: no String for the line, no general JSON parser. It reads only the plainest
 * form, and gives up (returns null) on anything else, so that the caller takes the general path for
 * it; where it returns an event, that event is the one {@link EventJson#parse} returns, and {@link
 * EventJson#parseRescued} has nothing to rescue. What it reads:
 *
 * <ul>
 *   <li>one object, from the first byte of the line to its last, without any whitespace;
 *   <li>only the five columns' names, each at most once, in any order, none escaped;
 *   <li>{@code event_id}, {@code user_id}: an integer of at most 18 (9) digits, without a leading
 *       zero;
 *   <li>{@code event_type}: a string of printable ASCII without escapes;
 *   <li>{@code event_ts}: a string {@code yyyy-MM-ddTHH:mm:ss.SSSZ} naming a valid time (Spark's
 *       writer's form), or the same with six digits of fraction (microseconds);
 *   <li>{@code amount}: a JSON number of at most 15 significant digits, at most 22 after the point,
 *       without an exponent, not a negative zero: its double is the digits as a whole number
 *       divided by a power of ten, both exact doubles, which one correctly rounded division makes
 *       the double nearest the decimal value, as {@code Double.parseDouble} (Jackson's) gives.
 * </ul>
 *
 * A JSON null, an unknown or repeated field, an escape, whitespace, a BOM, an array: all go the
 * general way.
 */
final class FastEventJson {

    private static final byte[] EVENT_ID = ascii("event_id");
    private static final byte[] USER_ID = ascii("user_id");
    private static final byte[] EVENT_TYPE = ascii("event_type");
    private static final byte[] EVENT_TS = ascii("event_ts");
    private static final byte[] AMOUNT = ascii("amount");

    private static final int MAX_EXACT_POWER = 22;
    private static final double[] POWERS_OF_TEN = new double[MAX_EXACT_POWER + 1];

    static {
        double p = 1;
        for (int i = 0; i <= MAX_EXACT_POWER; i++) {
            POWERS_OF_TEN[i] = p;
            p *= 10;
        }
    }

    /** Digits of a mantissa below 2^53, so that it is an exact double. */
    private static final int MAX_EXACT_DIGITS = 15;

    private static final int TIMESTAMP_LENGTH = "2025-03-01T00:00:00.000Z".length();

    /** Event types seen last: a feed has a handful, so most lines make no String for theirs. */
    private final byte[][] typeBytes = new byte[8][];

    private final String[] typeStrings = new String[8];
    private int typeNext;

    // The value read last: where it ended, and what it was.
    private int at;
    private long number;

    /** The event of {@code line[from, to)}, or null to read the line the general way. */
    Event parse(byte[] line, int from, int to) {
        if (to - from < 2 || line[from] != '{' || line[to - 1] != '}') {
            return null;
        }
        Event event = new Event();
        int seen = 0;
        int i = from + 1;
        while (true) {
            if (i >= to || line[i] != '"') {
                return null;
            }
            i++;
            int column;
            byte[] name;
            switch (line[i]) {
                case 'e':
                    if (isName(line, i, to, EVENT_ID)) {
                        column = 0;
                        name = EVENT_ID;
                    } else if (isName(line, i, to, EVENT_TS)) {
                        column = 3;
                        name = EVENT_TS;
                    } else if (isName(line, i, to, EVENT_TYPE)) {
                        column = 2;
                        name = EVENT_TYPE;
                    } else {
                        return null;
                    }
                    break;
                case 'u':
                    if (!isName(line, i, to, USER_ID)) {
                        return null;
                    }
                    column = 1;
                    name = USER_ID;
                    break;
                case 'a':
                    if (!isName(line, i, to, AMOUNT)) {
                        return null;
                    }
                    column = 4;
                    name = AMOUNT;
                    break;
                default:
                    return null;
            }
            if ((seen & (1 << column)) != 0) {
                return null;
            }
            seen |= 1 << column;
            i += name.length + 2;
            switch (column) {
                case 0:
                    if (!readInteger(line, i, to, 18)) {
                        return null;
                    }
                    event.eventId = number;
                    break;
                case 1:
                    if (!readInteger(line, i, to, 9)) {
                        return null;
                    }
                    event.userId = (int) number;
                    break;
                case 2:
                    event.eventType = readType(line, i, to);
                    if (event.eventType == null) {
                        return null;
                    }
                    break;
                case 3:
                    event.eventTs = readTimestamp(line, i, to);
                    if (event.eventTs == null) {
                        return null;
                    }
                    break;
                default:
                    event.amount = readAmount(line, i, to);
                    if (event.amount == null) {
                        return null;
                    }
                    break;
            }
            i = at;
            if (i >= to) {
                return null;
            }
            if (line[i] == '}') {
                return i == to - 1 ? event : null;
            }
            if (line[i] != ',') {
                return null;
            }
            i++;
        }
    }

    /** {@code "name":} at {@code i}, just after the name's opening quote. */
    private static boolean isName(byte[] line, int i, int to, byte[] name) {
        if (i + name.length + 2 > to) {
            return false;
        }
        for (int k = 0; k < name.length; k++) {
            if (line[i + k] != name[k]) {
                return false;
            }
        }
        return line[i + name.length] == '"' && line[i + name.length + 1] == ':';
    }

    /**
     * An integer of 1 to {@code maxDigits} digits without a leading zero, followed by {@code ,} or
     * {@code }}: into {@link #number} and {@link #at}.
     */
    private boolean readInteger(byte[] line, int i, int to, int maxDigits) {
        boolean negative = i < to && line[i] == '-';
        if (negative) {
            i++;
        }
        int first = i;
        long value = 0;
        while (i < to && line[i] >= '0' && line[i] <= '9') {
            value = value * 10 + (line[i] - '0');
            i++;
        }
        int digits = i - first;
        if (digits == 0
                || digits > maxDigits
                || (digits > 1 && line[first] == '0')
                || i >= to
                || (line[i] != ',' && line[i] != '}')) {
            return false;
        }
        number = negative ? -value : value;
        at = i;
        return true;
    }

    private String readType(byte[] line, int i, int to) {
        if (i >= to || line[i] != '"') {
            return null;
        }
        int first = ++i;
        while (i < to && line[i] != '"') {
            byte c = line[i];
            // Escapes, control characters and anything outside ASCII go the general way.
            if (c < 0x20 || c == '\\' || c > 0x7E) {
                return null;
            }
            i++;
        }
        if (i >= to) {
            return null;
        }
        at = i + 1;
        int length = i - first;
        for (int k = 0; k < typeBytes.length; k++) {
            byte[] known = typeBytes[k];
            if (known != null && known.length == length && sameBytes(line, first, known)) {
                return typeStrings[k];
            }
        }
        String type = new String(line, first, length, StandardCharsets.ISO_8859_1);
        typeBytes[typeNext] = type.getBytes(StandardCharsets.ISO_8859_1);
        typeStrings[typeNext] = type;
        typeNext = (typeNext + 1) % typeBytes.length;
        return type;
    }

    private static boolean sameBytes(byte[] line, int from, byte[] known) {
        for (int k = 0; k < known.length; k++) {
            if (line[from + k] != known[k]) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@code "yyyy-MM-ddTHH:mm:ss.SSSZ"} or {@code "yyyy-MM-ddTHH:mm:ss.SSSSSSZ"} (microseconds,
     * which Spark's TIMESTAMP keeps), a valid date and time, as {@link SparkTimestamps}.
     */
    private Instant readTimestamp(byte[] line, int i, int to) {
        int close = i + TIMESTAMP_LENGTH + 1;
        int fractionDigits = 3;
        if (close < to && line[close - 1] != 'Z') {
            close += 3;
            fractionDigits = 6;
        }
        if (close >= to
                || line[i] != '"'
                || line[close] != '"'
                || line[i + 5] != '-'
                || line[i + 8] != '-'
                || line[i + 11] != 'T'
                || line[i + 14] != ':'
                || line[i + 17] != ':'
                || line[i + 20] != '.'
                || line[close - 1] != 'Z') {
            return null;
        }
        int year = digits(line, i + 1, 4);
        int month = digits(line, i + 6, 2);
        int day = digits(line, i + 9, 2);
        int hour = digits(line, i + 12, 2);
        int minute = digits(line, i + 15, 2);
        int second = digits(line, i + 18, 2);
        int fraction = digits(line, i + 21, fractionDigits);
        if ((year | month | day | hour | minute | second | fraction) < 0
                || month < 1
                || month > 12
                || day < 1
                || day > daysInMonth(year, month)
                || hour > 23
                || minute > 59
                || second > 59) {
            return null;
        }
        at = close + 1;
        long seconds = epochDay(year, month, day) * 86_400L + hour * 3600 + minute * 60 + second;
        return Instant.ofEpochSecond(
                seconds, fraction * (fractionDigits == 3 ? 1_000_000L : 1_000L));
    }

    /** The number of {@code count} decimal digits, or -1 if one of them is no digit. */
    private static int digits(byte[] line, int from, int count) {
        int value = 0;
        for (int k = from; k < from + count; k++) {
            int d = line[k] - '0';
            if (d < 0 || d > 9) {
                return -1;
            }
            value = value * 10 + d;
        }
        return value;
    }

    private static int daysInMonth(int year, int month) {
        switch (month) {
            case 2:
                boolean leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
                return leap ? 29 : 28;
            case 4:
            case 6:
            case 9:
            case 11:
                return 30;
            default:
                return 31;
        }
    }

    /** Days from 1970-01-01 to a proleptic Gregorian date (as {@code LocalDate.toEpochDay}). */
    private static long epochDay(int year, int month, int day) {
        long y = month <= 2 ? year - 1 : year;
        long era = Math.floorDiv(y, 400);
        long yearOfEra = y - era * 400;
        int shiftedMonth = month <= 2 ? month + 9 : month - 3;
        long dayOfYear = (153L * shiftedMonth + 2) / 5 + day - 1;
        long dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
        return era * 146_097 + dayOfEra - 719_468;
    }

    /** A JSON number whose double one exact division gives (see the class), else null. */
    private Double readAmount(byte[] line, int i, int to) {
        boolean negative = i < to && line[i] == '-';
        if (negative) {
            i++;
        }
        int first = i;
        long mantissa = 0;
        int significant = 0;
        while (i < to && line[i] >= '0' && line[i] <= '9') {
            mantissa = mantissa * 10 + (line[i] - '0');
            if (mantissa != 0) {
                significant++;
            }
            i++;
        }
        int intDigits = i - first;
        if (intDigits == 0 || (intDigits > 1 && line[first] == '0')) {
            return null;
        }
        int fraction = 0;
        if (i < to && line[i] == '.') {
            i++;
            int fractionStart = i;
            while (i < to && line[i] >= '0' && line[i] <= '9') {
                mantissa = mantissa * 10 + (line[i] - '0');
                if (mantissa != 0) {
                    significant++;
                }
                i++;
            }
            fraction = i - fractionStart;
            if (fraction == 0) {
                return null;
            }
        }
        // An exponent, or anything else after the number, goes the general way.
        if (significant > MAX_EXACT_DIGITS
                || fraction > MAX_EXACT_POWER
                || i >= to
                || (line[i] != ',' && line[i] != '}')
                || (negative && mantissa == 0)) {
            return null;
        }
        at = i;
        double value = mantissa / POWERS_OF_TEN[fraction];
        return negative ? -value : value;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
