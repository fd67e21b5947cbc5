package org.flinkss.course.queries;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link WindowQuery#sessionRows}, the sessions {@code recompute} rebuilds from bronze: Spark's
 * sessions in microseconds, as the stream writes them.
 */
class SessionRowsTest {

    @Test
    void sessionsOfABatchMergeOnMicrosecondsAndKeepThemInStartAndEnd() {
        List<RowData> events =
                List.of(
                        event(1, 1, "00:00:00.000700Z", 1.25),
                        event(2, 1, "00:02:00.000200Z", 1.5), // 0.5 ms less than a gap: merged
                        event(3, 2, "00:02:00.000700Z", 2.0), // given out of order
                        event(4, 2, "00:00:00.000200Z", null), // 0.5 ms more than a gap: apart
                        event(5, null, "00:00:00.000300Z", 4.0), // a null user: its own group
                        event(6, null, "00:02:00.000300Z", 4.0), // exactly one gap: merged
                        event(7, 3, null, 8.0)); // no event time: no session

        List<String> sessions =
                WindowQuery.sessions(Api.DATASTREAM).sessionRows(events).stream()
                        .map(SessionRowsTest::text)
                        .collect(Collectors.toList());

        assertThat(sessions)
                .containsExactlyInAnyOrder(
                        "null [00:00:00.000300Z, 00:04:00.000300Z) 2 8.0",
                        "1 [00:00:00.000700Z, 00:04:00.000200Z) 2 2.75",
                        "2 [00:00:00.000200Z, 00:02:00.000200Z) 1 null",
                        "2 [00:02:00.000700Z, 00:04:00.000700Z) 1 2.0");
    }

    private static RowData event(long id, Integer user, String time, Double amount) {
        return GenericRowData.of(
                id,
                user,
                StringData.fromString("click"),
                time == null
                        ? null
                        : TimestampData.fromInstant(Instant.parse("2025-03-01T" + time)),
                amount);
    }

    private static String text(RowData r) {
        return (r.isNullAt(2) ? "null" : String.valueOf(r.getInt(2)))
                + " ["
                + r.getTimestamp(0, 6).toInstant().toString().substring(11)
                + ", "
                + r.getTimestamp(1, 6).toInstant().toString().substring(11)
                + ") "
                + r.getLong(3)
                + " "
                + (r.isNullAt(4) ? "null" : String.valueOf(r.getDouble(4)));
    }
}
