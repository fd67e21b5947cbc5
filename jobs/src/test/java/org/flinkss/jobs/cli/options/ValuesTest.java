package org.flinkss.jobs.cli.options;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.TimeZone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ValuesTest {

    @Test
    void sizesArePowersOf1024AndAtLeastOneByte() {
        assertThat(Values.bytes("64m")).isEqualTo(64L << 20);
        assertThat(Values.bytes("1G")).isEqualTo(1L << 30);
        assertThat(Values.bytes("512kb")).isEqualTo(512L << 10);
        assertThat(Values.bytes("4096")).isEqualTo(4096);
        assertThat(Values.bytes(" 2 t ")).isEqualTo(2L << 40);
        assertThatThrownBy(() -> Values.bytes("lots"))
                .hasMessage(
                        "cannot read 'lots' as a size: use bytes, or a number with k, m, g or t"
                                + " (e.g. 64m)");
        assertThatThrownBy(() -> Values.bytes("-1m")).hasMessageStartingWith("cannot read '-1m'");
        assertThatThrownBy(() -> Values.bytes("0"))
                .hasMessage(
                        "a size must be at least 1 byte, got '0'; leave the option out for no"
                                + " limit");
        assertThatThrownBy(() -> Values.bytes("0k")).hasMessageContaining("at least 1 byte");
        assertThatThrownBy(() -> Values.bytes("9000000t"))
                .hasMessage("'9000000t' is too large a size");
        assertThatThrownBy(() -> Values.bytes("99999999999999999999"))
                .hasMessageContaining("too large");
    }

    @Test
    void durationsArePositive() {
        assertThat(Values.duration("10s")).isEqualTo(Duration.ofSeconds(10));
        assertThat(Values.duration("5min")).isEqualTo(Duration.ofMinutes(5));
        assertThat(Values.duration("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Values.duration("PT1H")).isEqualTo(Duration.ofHours(1));
        assertThatThrownBy(() -> Values.duration("0s"))
                .hasMessage("a duration must be positive, got '0s' (e.g. 500ms, 10s, 5min, 1h)");
        assertThatThrownBy(() -> Values.duration("PT-5S"))
                .hasMessageStartingWith("a duration must be positive");
        assertThatThrownBy(() -> Values.duration("soon"))
                .hasMessage("cannot read 'soon' as a duration: use e.g. 500ms, 10s, 5min or 1h");
        assertThatThrownBy(() -> Values.duration("PTsoon"))
                .hasMessageStartingWith("cannot read 'PTsoon' as a duration");
        assertThatThrownBy(() -> Values.duration("5 fortnights"))
                .hasMessageStartingWith("cannot read '5 fortnights'");
    }

    @Test
    void timestampsAreUtcWhateverTheJvmsZone() {
        TimeZone zone = TimeZone.getDefault();
        try {
            TimeZone.setDefault(TimeZone.getTimeZone("America/New_York"));
            Instant expected = Instant.parse("2025-03-01T00:30:00Z");
            assertThat(Values.timestamp("2025-03-01T00:30:00Z")).isEqualTo(expected);
            assertThat(Values.timestamp("2025-03-01 00:30:00")).isEqualTo(expected);
            assertThat(Values.timestamp("2025-03-01T00:30")).isEqualTo(expected);
            assertThat(Values.timestamp("2025-03-01T01:30:00+01:00")).isEqualTo(expected);
        } finally {
            TimeZone.setDefault(zone);
        }
        assertThatThrownBy(() -> Values.timestamp("yesterday"))
                .hasMessage(
                        "cannot read 'yesterday' as a time: use 2025-03-01T00:00:00Z or"
                                + " '2025-03-01 00:00:00' (UTC)");
    }

    @Test
    void countsAndLimitsAreOneOrMore() {
        assertThat(Values.positiveInt("500")).isEqualTo(500);
        assertThatThrownBy(() -> Values.positiveInt("-5"))
                .hasMessage("must be 1 or more, got '-5'");
        assertThatThrownBy(() -> Values.positiveInt("0")).hasMessage("must be 1 or more, got '0'");
        assertThatThrownBy(() -> Values.positiveInt("five"))
                .hasMessage("'five' is not a whole number");
        assertThatThrownBy(() -> Values.positiveInt("3000000000"))
                .hasMessage("'3000000000' is too large: at most 2147483647");
        assertThat(Values.limit("10")).isEqualTo(10);
        assertThatThrownBy(() -> Values.limit("-1"))
                .hasMessage(
                        "must be 1 or more, got '-1'; leave the option out for no limit (Spark"
                                + " refuses 0 and negative limits too)");
    }
}
