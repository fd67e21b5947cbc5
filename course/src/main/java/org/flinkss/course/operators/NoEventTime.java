package org.flinkss.course.operators;

import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

import java.time.Instant;

/**
 * Rows without event time for the Table API, whose {@code rowtime} cannot be null: before the
 * conversion to a table such a row gets {@link #TIME} (9999-12-31T23:59:59.999Z, the last instant a
 * {@code TIMESTAMP_LTZ(3)} holds, which no event has) as its record timestamp, and a process table
 * function that sees it treats the row as having none ({@link DedupWithinWatermarkFunction} keeps
 * it and never forgets its key, as Spark does with a null {@code event_ts}). Watermarks pass
 * through unchanged.
 */
public final class NoEventTime<T> extends AbstractStreamOperator<T>
        implements OneInputStreamOperator<T, T> {

    private static final long serialVersionUID = 1L;

    /** The record timestamp that stands for "no event time". */
    public static final long TIME = Instant.parse("9999-12-31T23:59:59.999Z").toEpochMilli();

    /** Null for {@link #TIME}, the instant otherwise. */
    public static Instant orNull(Instant time) {
        return time != null && time.toEpochMilli() == TIME ? null : time;
    }

    @Override
    public void processElement(StreamRecord<T> element) {
        // A source record without event time has none, or Long.MIN_VALUE as its timestamp.
        if (element.hasTimestamp() && element.getTimestamp() != Long.MIN_VALUE) {
            output.collect(element);
        } else {
            output.collect(element.replace(element.getValue(), TIME));
        }
    }
}
