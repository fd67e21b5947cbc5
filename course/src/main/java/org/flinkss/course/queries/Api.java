package org.flinkss.course.queries;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The Flink API a course query is written in: the same query exists as DataStream operators and as
 * Flink SQL, and both write identical tables. The text ({@code datastream}, {@code table}) is part
 * of a stateful query's checkpoint identity, so it must not change.
 */
public enum Api {
    DATASTREAM,
    TABLE;

    /** {@code datastream} or {@code table}, in any case. */
    public static Api parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        for (Api api : values()) {
            if (api.text().equals(t)) {
                return api;
            }
        }
        throw new IllegalArgumentException("unknown --api '" + text + "': use " + choices());
    }

    /** As the command line spells it. */
    public String text() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** "datastream or table". */
    static String choices() {
        return Arrays.stream(values()).map(Api::text).collect(Collectors.joining(" or "));
    }

    @Override
    public String toString() {
        return text();
    }
}
