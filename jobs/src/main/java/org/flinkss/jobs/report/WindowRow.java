package org.flinkss.jobs.report;

import javax.annotation.Nullable;

import java.time.Instant;

/**
 * A row of a windowed table: {@code window_start, window_end, <key>, events, amount}.
 *
 * @param amount {@code null} where the table has none
 */
public record WindowRow(
        Instant start, Instant end, String key, long events, @Nullable Double amount) {}
