package org.flinkss.runtime.trigger;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TriggerTest {

    @Test
    void parsesEveryTriggerOfTheCourse() {
        assertThat(Trigger.parse("available-now").isAvailableNow()).isTrue();
        assertThat(Trigger.parse("once").isAvailableNow()).isTrue();
        assertThat(Trigger.parse("once").isDeprecatedOnce()).isTrue();
        assertThat(Trigger.parse("processing-time=10s").interval())
                .isEqualTo(Duration.ofSeconds(10));
        assertThat(Trigger.parse("processing-time=10 seconds").interval())
                .isEqualTo(Duration.ofSeconds(10));
        assertThat(Trigger.parse("continuous").kind()).isEqualTo(Trigger.Kind.CONTINUOUS);
    }

    @Test
    void refusesUnknownTriggersAndDurationsSayingWhatIsAllowed() {
        assertThatThrownBy(() -> Trigger.parse("real-time=0s"))
                .hasMessageContaining("must be positive");
        assertThatThrownBy(() -> Trigger.parse("realtim"))
                .hasMessageContaining("available-now, processing-time=<interval>");
        assertThatThrownBy(() -> Trigger.parse("processing-time=ten"))
                .hasMessageContaining("e.g. 10s");
        assertThatThrownBy(() -> Trigger.parse("processing-time=0s"))
                .hasMessageContaining("must be positive");
    }

    @Test
    void realTimeCommitsAtItsCheckpointIntervalFiveSecondsUnlessGiven() {
        Trigger plain = Trigger.parse("real-time");
        assertThat(plain.isRealTime()).isTrue();
        assertThat(plain.isAvailableNow()).isFalse();
        assertThat(plain.interval()).isEqualTo(Duration.ofSeconds(5));
        Trigger given = Trigger.parse("real-time=30s");
        assertThat(given.kind()).isEqualTo(Trigger.Kind.REAL_TIME);
        assertThat(given.interval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(given.toString()).isEqualTo("real-time=30000ms");
        assertThat(Trigger.parse(given.toString()).interval()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void durationsReadLikeSparksIntervals() {
        assertThat(Trigger.parseDuration("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Trigger.parseDuration("2min")).isEqualTo(Duration.ofMinutes(2));
        assertThat(Trigger.parseDuration("10 minutes")).isEqualTo(Duration.ofMinutes(10));
        assertThat(Trigger.parseDuration("PT1H")).isEqualTo(Duration.ofHours(1));
    }
}
