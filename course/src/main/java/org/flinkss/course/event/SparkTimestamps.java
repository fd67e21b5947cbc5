package org.flinkss.course.event;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.regex.Pattern;

/**
 * Spark's string to TIMESTAMP conversion ({@code SparkDateTimeUtils.parseTimestampString}), which
 * its JSON reader uses when no {@code timestampFormat} is set. Accepted, after trimming:
 *
 * <pre>
 * [+-]yyyy[yy]
 * [+-]yyyy[yy]-[m]m
 * [+-]yyyy[yy]-[m]m-[d]d
 * [+-]yyyy[yy]-[m]m-[d]d( |T)[h]h[:[m]m[:[s]s[.fraction]][zone]]
 * </pre>
 *
 * where the zone (allowed only after the seconds) is {@code Z}, an offset, {@code UTC}, {@code
 * GMT+1} or a region such as {@code Europe/Paris}; without one the time is UTC, the course's
 * session time zone. Fractions are kept to the microsecond, like Spark's TIMESTAMP. Spark's
 * time-only forms ({@code 10:00:00}, meaning today) are not accepted.
 */
final class SparkTimestamps {

    /** Spark's TIMESTAMP is a long of microseconds since the epoch. */
    private static final long MAX_SECONDS = Long.MAX_VALUE / 1_000_000;

    // Spark's getZoneId rewrites the pre-3.0 forms +h:mm and +hh:m before ZoneId.of.
    private static final Pattern ONE_DIGIT_HOUR = Pattern.compile("(\\+|\\-)(\\d):");
    private static final Pattern ONE_DIGIT_MINUTE = Pattern.compile("(\\+|\\-)(\\d\\d):(\\d)$");

    private SparkTimestamps() {}

    /** The instant the text denotes, or null when Spark would not parse it. */
    static Instant parse(String text) {
        String s = text.trim();
        int n = s.length();
        int i = 0;
        int sign = 1;
        if (n > 0 && (s.charAt(0) == '-' || s.charAt(0) == '+')) {
            sign = s.charAt(0) == '-' ? -1 : 1;
            i = 1;
        }
        int end = digitsEnd(s, i);
        if (end - i < 4 || end - i > 6) {
            return null;
        }
        int year = sign * number(s, i, end);
        int month = 1;
        int day = 1;
        int hour = 0;
        int minute = 0;
        int second = 0;
        int nano = 0;
        ZoneId zone = ZoneOffset.UTC;
        i = end;
        if (i < n) {
            if (s.charAt(i) != '-' || !isOneOrTwoDigits(s, i + 1)) {
                return null;
            }
            end = digitsEnd(s, ++i);
            month = number(s, i, end);
            i = end;
        }
        if (i < n) {
            if (s.charAt(i) != '-' || !isOneOrTwoDigits(s, i + 1)) {
                return null;
            }
            end = digitsEnd(s, ++i);
            day = number(s, i, end);
            i = end;
        }
        if (i < n) {
            char separator = s.charAt(i);
            if ((separator != ' ' && separator != 'T') || !isOneOrTwoDigits(s, i + 1)) {
                return null;
            }
            end = digitsEnd(s, ++i);
            hour = number(s, i, end);
            i = end;
        }
        if (i < n) {
            if (s.charAt(i) != ':' || !isOneOrTwoDigits(s, i + 1)) {
                return null;
            }
            end = digitsEnd(s, ++i);
            minute = number(s, i, end);
            i = end;
        }
        if (i < n) {
            if (s.charAt(i) != ':' || !isOneOrTwoDigits(s, i + 1)) {
                return null;
            }
            end = digitsEnd(s, ++i);
            second = number(s, i, end);
            i = end;
            if (i < n && s.charAt(i) == '.') {
                end = digitsEnd(s, ++i);
                nano = nanos(s, i, end);
                i = end;
            }
            if (i < n) {
                zone = zone(s.substring(i).trim());
                if (zone == null) {
                    return null;
                }
            }
        }
        try {
            // Spark keeps microseconds: the 7th to 9th fractional digits are floored away.
            LocalDateTime local =
                    LocalDateTime.of(year, month, day, hour, minute, second, nano - nano % 1000);
            Instant instant =
                    zone == ZoneOffset.UTC
                            ? local.toInstant(ZoneOffset.UTC)
                            : ZonedDateTime.of(local, zone).toInstant();
            return Math.abs(instant.getEpochSecond()) < MAX_SECONDS ? instant : null;
        } catch (DateTimeException e) {
            return null;
        }
    }

    private static ZoneId zone(String id) {
        if (id.equals("Z")) {
            return ZoneOffset.UTC;
        }
        String normalized = ONE_DIGIT_HOUR.matcher(id).replaceFirst("$10$2:");
        normalized = ONE_DIGIT_MINUTE.matcher(normalized).replaceFirst("$1$2:0$3");
        try {
            return ZoneId.of(normalized, ZoneId.SHORT_IDS);
        } catch (DateTimeException e) {
            return null;
        }
    }

    private static int digitsEnd(String s, int from) {
        int i = from;
        while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
            i++;
        }
        return i;
    }

    private static boolean isOneOrTwoDigits(String s, int from) {
        int digits = digitsEnd(s, from) - from;
        return digits == 1 || digits == 2;
    }

    private static int number(String s, int from, int to) {
        int value = 0;
        for (int i = from; i < to; i++) {
            value = value * 10 + (s.charAt(i) - '0');
        }
        return value;
    }

    /** The nanoseconds of a fraction's digits; digits past the ninth are dropped, as Spark does. */
    private static int nanos(String s, int from, int to) {
        int value = 0;
        for (int i = from; i < from + 9; i++) {
            value = value * 10 + (i < to ? s.charAt(i) - '0' : 0);
        }
        return value;
    }
}
