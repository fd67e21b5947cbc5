package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.FallbackKey;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.StateRecoveryOptions;

import org.flinkss.runtime.QueryException;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The Flink options a run was given ({@code -D key=value}, {@code RunOptions.flinkOption}): set
 * last, over the configuration file and the run's own settings, as Flink's CLI sets its {@code -D}
 * over {@code config.yaml}. A few keys are the run's and are refused before anything starts: they
 * place or restore the query's state, and a run that wrote its checkpoints elsewhere, restored
 * another state, or cut its batches at another interval would break what the checkpoint guarantees
 * (exactly-once, the micro-batch watermark).
 */
@Internal
public final class FlinkOverrides {

    /** Keys the run sets itself, and what to use instead. */
    private static final Map<ConfigOption<?>, String> OWNED = new LinkedHashMap<>();

    static {
        OWNED.put(
                CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                "the query's checkpoints are in <base>/_cp/<query>/checkpoints: choose --base");
        OWNED.put(
                CheckpointingOptions.SAVEPOINT_DIRECTORY,
                "the query's savepoints are in <base>/_cp/<query>/savepoints: choose --base");
        OWNED.put(
                StateRecoveryOptions.SAVEPOINT_PATH,
                "a run restores its query's newest checkpoint or savepoint itself: 'reset <query>'"
                        + " starts it afresh");
        OWNED.put(
                CheckpointingOptions.CHECKPOINTING_INTERVAL,
                "give --checkpoint-interval (a processing-time trigger's interval is its"
                        + " batches')");
        OWNED.put(
                CoreOptions.TMP_DIRS,
                "each run has a temporary folder of its own, deleted when it ends (<base>/_tmp)");
    }

    private final Map<String, String> overrides;

    /**
     * @throws QueryException if a key is one the run sets itself ({@link #check})
     */
    public FlinkOverrides(Map<String, String> overrides) {
        check(overrides);
        this.overrides = Map.copyOf(overrides);
    }

    /**
     * Refuses a key the run sets itself, naming what to use instead.
     *
     * @throws QueryException for the first such key
     */
    public static void check(Map<String, String> overrides) {
        for (String key : overrides.keySet()) {
            OWNED.forEach(
                    (option, instead) -> {
                        if (names(option, key)) {
                            throw new QueryException(
                                    "-D "
                                            + key
                                            + " cannot be set for a run: "
                                            + instead
                                            + " (docs/command-line.md, Flink options)");
                        }
                    });
        }
    }

    private static boolean names(ConfigOption<?> option, String key) {
        if (option.key().equals(key)) {
            return true;
        }
        for (FallbackKey fallback : option.fallbackKeys()) {
            if (fallback.getKey().equals(key)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Sets the options on {@code conf}. On an embedded cluster, whose REST endpoint otherwise takes
     * any free port ({@code rest.bind-port: 0}), a {@code rest.port} given alone is the port it
     * binds, as on a cluster where {@code rest.bind-port} is unset.
     */
    public void applyTo(Configuration conf, boolean embedded) {
        overrides.forEach(conf::setString);
        if (embedded
                && overrides.containsKey(RestOptions.PORT.key())
                && !overrides.containsKey(RestOptions.BIND_PORT.key())) {
            conf.set(RestOptions.BIND_PORT, overrides.get(RestOptions.PORT.key()));
        }
    }
}
