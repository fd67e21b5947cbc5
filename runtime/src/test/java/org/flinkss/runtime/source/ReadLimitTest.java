package org.flinkss.runtime.source;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The rate limits: unset or positive, refused otherwise with Spark's message. */
class ReadLimitTest {

    @Test
    void zeroAndNegativeLimitsAreRefusedWithSparksMessage() {
        assertThatThrownBy(() -> ReadLimit.none().withMaxFilesPerTrigger(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "Invalid value '0' for option 'maxFilesPerTrigger', must be a positive"
                                + " integer");
        assertThatThrownBy(() -> ReadLimit.none().withMaxFilesPerTrigger(-5))
                .hasMessage(
                        "Invalid value '-5' for option 'maxFilesPerTrigger', must be a positive"
                                + " integer");
        assertThatThrownBy(() -> ReadLimit.none().withMaxBytesPerTrigger(0))
                .hasMessage(
                        "Invalid value '0' for option 'maxBytesPerTrigger', must be a positive"
                                + " integer");
        assertThatThrownBy(() -> ReadLimit.none().withMaxOffsetsPerTrigger(-1))
                .hasMessage(
                        "Invalid value '-1' for option 'maxOffsetsPerTrigger', must be a positive"
                                + " integer");
    }

    @Test
    void unsetMeansNoLimitAndEachLimitIsKeptBesideTheOthers() {
        assertThat(ReadLimit.none().maxUnits()).isEqualTo(Integer.MAX_VALUE);
        assertThat(ReadLimit.none().maxBytesPerTrigger()).isEmpty();
        assertThat(ReadLimit.none()).hasToString("no limit");

        ReadLimit all =
                ReadLimit.none()
                        .withMaxFilesPerTrigger(2)
                        .withMaxBytesPerTrigger(1024)
                        .withMaxOffsetsPerTrigger(100);

        assertThat(all.maxUnits()).isEqualTo(2);
        assertThat(all.maxFilesPerTrigger()).hasValue(2);
        assertThat(all.maxBytesPerTrigger()).hasValue(1024);
        assertThat(all.maxOffsetsPerTrigger()).hasValue(100);
        assertThat(all)
                .hasToString(
                        "maxFilesPerTrigger=2, maxBytesPerTrigger=1024, maxOffsetsPerTrigger=100")
                .isEqualTo(
                        ReadLimit.none()
                                .withMaxOffsetsPerTrigger(100)
                                .withMaxBytesPerTrigger(1024)
                                .withMaxFilesPerTrigger(2));
    }
}
