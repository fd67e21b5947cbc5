package org.flinkss.runtime.checkpoint;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.time.WatermarkPolicy;

import javax.annotation.Nullable;

/**
 * The Spark configuration a checkpoint keeps for its life ({@link QueryIdentity#conf}), compared
 * with a run's: today {@value WatermarkPolicy#SPARK_CONF} of a query with several watermark nodes.
 *
 * <p>Spark writes the policy into every offset log entry ({@code OffsetSeqMetadata.conf}) and, on a
 * restart, sets the session's conf from the checkpoint, ignoring a new value with a warning: the
 * watermark the checkpoint's state was dropped and emitted by must not change under it. Here a
 * different policy is refused instead, before anything runs, naming both and the way out: a run
 * that silently ignored {@code --watermark-policy max} would give min's results to someone who
 * asked for max. A checkpoint recorded before the option existed was made under {@code min}
 * (Spark's {@code relevantSQLConfDefaultValues} reads a missing policy the same way).
 */
final class ConfRecord {

    private ConfRecord() {}

    /** The policy a checkpoint recorded, or the one its queries ran with before it was recorded. */
    static WatermarkPolicy policyOf(QueryIdentity recorded) {
        String text = recorded.conf().get(WatermarkPolicy.SPARK_CONF);
        return text == null ? WatermarkPolicy.DEFAULT : WatermarkPolicy.parse(text);
    }

    /**
     * Why a checkpoint that recorded {@code existing} cannot serve {@code run} for its conf, or
     * null if it can; a run that records no policy (a query with one watermark node) passes.
     */
    @Nullable
    static QueryException refusal(
            CheckpointLayout layout, QueryIdentity existing, QueryIdentity run) {
        String asked = run.conf().get(WatermarkPolicy.SPARK_CONF);
        if (asked == null) {
            return null;
        }
        WatermarkPolicy now = WatermarkPolicy.parse(asked);
        WatermarkPolicy then = policyOf(existing);
        if (now == then) {
            return null;
        }
        boolean recorded = existing.conf().containsKey(WatermarkPolicy.SPARK_CONF);
        return new QueryException(
                "query '"
                        + run.name()
                        + "' refused: its checkpoint "
                        + layout
                        + " was made with --watermark-policy "
                        + then.text()
                        + (recorded ? "" : " (it records none: made before the option existed)")
                        + ", but this run asks for --watermark-policy "
                        + now.text()
                        + ". The policy ("
                        + WatermarkPolicy.SPARK_CONF
                        + ") decided which rows its state dropped and which windows it emitted,"
                        + " so it stays with the checkpoint (Spark keeps the checkpoint's and"
                        + " ignores a new one). Run it with --watermark-policy "
                        + then.text()
                        + ", or start over with 'reset "
                        + run.name()
                        + "' (a new checkpoint, its tables rebuilt) to run with "
                        + now.text()
                        + ". Nothing was changed.");
    }

    /**
     * Whether {@code existing}, which serves {@code run}, should record the run's conf: it is a
     * checkpoint made before the conf was recorded.
     */
    static boolean recordsLess(QueryIdentity existing, QueryIdentity run) {
        return !run.conf().isEmpty() && !existing.conf().equals(run.conf());
    }
}
