package org.flinkss.jobs.cli.options;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.time.WatermarkPolicy;

/**
 * {@code --watermark-policy min|max}: Spark's {@code spark.sql.streaming.multipleWatermarkPolicy}
 * for a query with several watermarked inputs, kept in its checkpoint.
 */
public final class WatermarkPolicyOption {

    @Option(
            names = "--watermark-policy",
            defaultValue = "min",
            paramLabel = "min|max",
            converter = PolicyValue.class,
            description =
                    "how a query with several watermarked inputs (view-then-buy: views and buys)"
                        + " picks its watermark, as Spark's"
                        + " spark.sql.streaming.multipleWatermarkPolicy: min (default) follows the"
                        + " slowest input, max the fastest (rows of a slower input are dropped"
                        + " sooner). Recorded in the checkpoint at the first run; a run with"
                        + " another policy is refused ('reset' to change it). Refused as max on a"
                        + " query with one watermarked input")
    WatermarkPolicy policy;

    public WatermarkPolicy policy() {
        return policy;
    }

    void applyTo(RunOptions.Builder options) {
        options.watermarkPolicy(policy);
    }

    /** {@link WatermarkPolicy#parse}, its refusal as picocli's, naming the option. */
    public static final class PolicyValue implements ITypeConverter<WatermarkPolicy> {
        @Override
        public WatermarkPolicy convert(String text) {
            try {
                return WatermarkPolicy.parse(text);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
