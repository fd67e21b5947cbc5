package org.flinkss.course.event;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The byte-level reader gives exactly {@link EventJson#parse}'s event where it reads a line, and
 * leaves the rest to it.
 */
class FastEventJsonTest {

    private final FastEventJson fast = new FastEventJson();

    /** The fast reader's event for the line, checked against the general parser's; null if none. */
    private Event fastChecked(String line) {
        byte[] bytes = ("xx" + line + "yy").getBytes(StandardCharsets.UTF_8);
        Event event = fast.parse(bytes, 2, bytes.length - 2);
        if (event != null) {
            assertThat(event).as(line).isEqualTo(EventJson.parse(line));
            assertThat(EventJson.parseRescued(line, "/in/a.json").rescuedData).as(line).isNull();
        }
        return event;
    }

    @Test
    void everyLineOfTheCourseGeneratorIsReadFromItsBytesAsTheGeneralParserReadsIt() {
        for (long id = 0; id < 200_000; id += 7) {
            Event generated = EventGenerator.event(id);
            assertThat(fastChecked(EventJson.toJson(generated))).isEqualTo(generated);
        }
    }

    @Test
    void plainLinesInAnyFieldOrderWithSomeFieldsMissingAreReadFast() {
        List<String> lines =
                List.of(
                        "{\"amount\":-3.5,\"event_ts\":\"2024-02-29T23:59:59.999Z\",\"event_id\":-12}",
                        "{\"user_id\":-2147483,\"event_type\":\"a b ~!\"}",
                        "{\"event_id\":0,\"amount\":0}",
                        "{\"event_id\":999999999999999999,\"amount\":123456789012345}",
                        "{\"amount\":0.0000000000000000000001}",
                        "{\"amount\":-0.5,\"event_ts\":\"0000-01-01T00:00:00.000Z\"}",
                        "{\"event_ts\":\"9999-12-31T23:59:59.999Z\",\"amount\":99.99}",
                        "{\"event_type\":\"\"}");
        for (String line : lines) {
            assertThat(fastChecked(line)).as(line).isNotNull();
        }
    }

    @Test
    void anythingButThePlainestFormGoesTheGeneralWay() {
        List<String> lines =
                List.of(
                        "",
                        "{}",
                        " {\"event_id\":1}",
                        "{\"event_id\":1} ",
                        "{\"event_id\": 1}",
                        "{\"event_id\":1,}",
                        "{\"event_id\":1",
                        "[{\"event_id\":1}]",
                        "\uFEFF{\"event_id\":1}",
                        "{\"event_id\":null}",
                        "{\"event_id\":01}",
                        "{\"event_id\":1.0}",
                        "{\"event_id\":\"1\"}",
                        "{\"event_id\":1234567890123456789}",
                        "{\"event_id\":1,\"event_id\":2}",
                        "{\"Event_id\":1}",
                        "{\"channel\":1}",
                        "{'event_id':1}",
                        "{\"user_id\":1234567890}",
                        "{\"event_type\":\"a\\\"b\"}",
                        "{\"event_type\":\"caf\u00e9\"}",
                        "{\"event_type\":4.50}",
                        "{\"event_ts\":\"2025-02-29T00:00:00.000Z\"}",
                        "{\"event_ts\":\"2025-03-01T24:00:00.000Z\"}",
                        "{\"event_ts\":\"2025-03-01 00:00:00.000Z\"}",
                        "{\"event_ts\":\"2025-03-01T00:00:00Z\"}",
                        "{\"event_ts\":\"2025-03-01T00:00:00.000+01:00\"}",
                        "{\"event_ts\":1740787200}",
                        "{\"amount\":1e5}",
                        "{\"amount\":1.}",
                        "{\"amount\":.5}",
                        "{\"amount\":-0}",
                        "{\"amount\":-0.0}",
                        "{\"amount\":00.5}",
                        "{\"amount\":NaN}",
                        "{\"amount\":\"NaN\"}",
                        "{\"amount\":1234567890123456}",
                        "{\"amount\":0.00000000000000000000001}");
        for (String line : lines) {
            assertThat(fastChecked(line)).as(line).isNull();
        }
    }

    @Test
    void amountsAreTheDoublesJacksonParses() {
        Random random = new Random(17);
        for (int n = 0; n < 200_000; n++) {
            String amount;
            switch (n % 3) {
                case 0:
                    amount = Double.toString(random.nextInt(1_000_000) / 100.0);
                    break;
                case 1:
                    amount =
                            Double.toString(
                                    random.nextDouble() * Math.pow(10, random.nextInt(30) - 15));
                    break;
                default:
                    {
                        // Up to 15 digits, the point anywhere.
                        String digits = Long.toString((long) (random.nextDouble() * 1e15));
                        int point = random.nextInt(digits.length() + 1);
                        amount =
                                point == digits.length()
                                        ? digits
                                        : (point == 0 ? "0" : digits.substring(0, point))
                                                + "."
                                                + digits.substring(point);
                        if (random.nextBoolean()) {
                            amount = "-" + amount;
                        }
                    }
            }
            fastChecked("{\"event_id\":" + n + ",\"amount\":" + amount + "}");
        }
    }

    @Test
    void timestampsWithMicrosecondsAreReadFastAndKeepThem() {
        for (String text :
                List.of(
                        "2025-03-01T00:00:00.123456Z",
                        "2025-03-01T00:00:00.000001Z",
                        "2025-03-01T00:09:59.999999Z",
                        "2024-02-29T23:59:59.100000Z")) {
            String line = "{\"event_id\":1,\"event_ts\":\"" + text + "\",\"amount\":2.5}";
            assertThat(fastChecked(line))
                    .as(line)
                    .isEqualTo(new Event(1L, null, null, Instant.parse(text), 2.5));
        }
        // Other fraction lengths go the general way, which keeps what Spark keeps.
        for (String text :
                List.of(
                        "2025-03-01T00:00:00.1234Z",
                        "2025-03-01T00:00:00.1234567Z",
                        "2025-03-01T00:00:00.12345xZ")) {
            assertThat(fastChecked("{\"event_ts\":\"" + text + "\"}")).as(text).isNull();
        }
        Random random = new Random(29);
        for (int n = 0; n < 20_000; n++) {
            Instant ts =
                    Instant.ofEpochSecond(
                            1_740_787_200L + random.nextInt(1_000_000),
                            random.nextInt(1_000_000) * 1000L);
            String text =
                    java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'")
                            .withZone(java.time.ZoneOffset.UTC)
                            .format(ts);
            String line = "{\"event_ts\":\"" + text + "\"}";
            assertThat(fastChecked(line)).as(line).isEqualTo(new Event(null, null, null, ts, null));
        }
    }

    @Test
    void timestampsAreTheInstantsSparkTimestampsParsesAndInvalidOnesGoTheGeneralWay() {
        Random random = new Random(17);
        List<String> read = new ArrayList<>();
        for (int n = 0; n < 100_000; n++) {
            Instant ts =
                    Instant.ofEpochMilli(
                            -62_167_219_200_000L
                                    + (long) (random.nextDouble() * 315_537_897_600_000L));
            String line = "{\"event_ts\":\"" + EventJson.timestampText(ts) + "\"}";
            assertThat(fastChecked(line)).as(line).isEqualTo(new Event(null, null, null, ts, null));
            // The fields out of their ranges too: month 13, day 31 of a 30-day month, hour 24 ...
            String odd =
                    String.format(
                            "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
                            random.nextInt(10000),
                            random.nextInt(15),
                            random.nextInt(33),
                            random.nextInt(26),
                            random.nextInt(62),
                            random.nextInt(62),
                            random.nextInt(1000));
            if (fastChecked("{\"event_ts\":\"" + odd + "\"}") != null) {
                read.add(odd);
            }
        }
        assertThat(read).isNotEmpty();
    }
}
