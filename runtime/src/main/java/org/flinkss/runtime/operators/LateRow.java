package org.flinkss.runtime.operators;

/**
 * A row that a stateful operator did not take because of the watermark: the row, the watermark it
 * missed (Spark's, in epoch milliseconds, {@link Long#MIN_VALUE} for none) and why.
 *
 * @param <T> the rows
 */
public final class LateRow<T> {

    public T row;
    public long watermark;
    public String reason;

    public LateRow() {}

    public LateRow(T row, long watermark, String reason) {
        this.row = row;
        this.watermark = watermark;
        this.reason = reason;
    }
}
