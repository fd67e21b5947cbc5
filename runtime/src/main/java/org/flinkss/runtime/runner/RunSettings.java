package org.flinkss.runtime.runner;

import org.apache.flink.configuration.ReadableConfig;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.progress.ProgressListener;
import org.flinkss.runtime.runner.impl.FlinkOverrides;
import org.flinkss.runtime.runner.impl.JobConfiguration;
import org.flinkss.runtime.storage.Lease;
import org.flinkss.runtime.trigger.Trigger;

import javax.annotation.Nullable;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How a {@link QueryRun} runs its job: the trigger, how long a timed run lasts, the parallelism,
 * the Flink configuration, where the run reports and where it keeps temporary files. Built with
 * {@link #builder()}.
 */
public final class RunSettings {

    final Trigger trigger;
    @Nullable final Duration runFor;
    @Nullable final Integer parallelism;
    @Nullable final Duration checkpointInterval;
    // Local by nature, so java.nio: Flink reads config.yaml from a folder on this machine.
    @Nullable final Path flinkConfDir;
    final Map<String, String> flinkOverrides;
    final List<ProgressListener> listeners;
    final PrintStream out;
    final boolean printProgress;
    final boolean announce;
    final boolean webUi;
    // The embedded cluster's temporary files: on this machine whatever the base (java.nio).
    final Path tmpRoot;
    final Duration leaseTime;

    private RunSettings(Builder b) {
        this.trigger = b.trigger;
        this.runFor = b.runFor;
        this.parallelism = b.parallelism;
        this.checkpointInterval = b.checkpointInterval;
        this.flinkConfDir = b.flinkConfDir;
        this.flinkOverrides = Map.copyOf(b.flinkOverrides);
        // A key the run sets itself is refused now, before any run starts.
        FlinkOverrides.check(flinkOverrides);
        this.listeners = List.copyOf(b.listeners);
        this.out = b.out;
        this.printProgress = b.printProgress;
        this.announce = b.announce != null ? b.announce : b.printProgress;
        this.webUi = b.webUi;
        this.tmpRoot = b.tmpRoot;
        this.leaseTime = b.leaseTime;
    }

    /** The Flink configuration of a run of the checkpoint {@code layout} with these settings. */
    JobConfiguration jobConfiguration(
            CheckpointLayout layout,
            @Nullable ReadableConfig flinkRunClient,
            PrintStream out,
            boolean announce) {
        return new JobConfiguration(
                layout,
                checkpointInterval(),
                flinkOverrides,
                flinkConfDir == null ? null : flinkConfDir.toFile(),
                flinkRunClient,
                out,
                announce);
    }

    public static Builder builder() {
        return new Builder();
    }

    public Trigger trigger() {
        return trigger;
    }

    /** Where the run prints its progress, notes and warnings. */
    public PrintStream out() {
        return out;
    }

    /**
     * The periodic checkpoint interval of an availableNow run. Its batches do not wait for a
     * periodic checkpoint: at each batch's end the client asks for one, and the last batch is
     * committed by the stop's savepoint. A periodic checkpoint inside a batch only bounds what a
     * failure makes the job read again, and costs a stateful query a RocksDB flush, an upload and
     * one more file to search on every lookup (issue 17: {@code bench dedup} took 14% less CPU with
     * none than with one every second).
     */
    public static final Duration AVAILABLE_NOW_CHECKPOINT_INTERVAL = Duration.ofSeconds(30);

    /**
     * The checkpoint interval: the one given, else {@link #AVAILABLE_NOW_CHECKPOINT_INTERVAL} for
     * an availableNow run, else the trigger's (a batch of a processing-time or continuous run ends
     * at the first periodic checkpoint after its input is read).
     */
    Duration checkpointInterval() {
        if (checkpointInterval != null) {
            return checkpointInterval;
        }
        return trigger.isAvailableNow() ? AVAILABLE_NOW_CHECKPOINT_INTERVAL : trigger.interval();
    }

    /**
     * How long a run's job goes on without a heartbeat of its client (one every 2 s): then it stops
     * itself (a killed {@code flink run} client leaves it running on the cluster otherwise).
     */
    public static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(60);

    /**
     * Builds {@link RunSettings}: an availableNow run that prints its progress, by default; {@link
     * #tmpRoot(Path)} has no default.
     */
    public static final class Builder {
        private Path tmpRoot;
        private Trigger trigger = Trigger.availableNow();
        private Duration runFor;
        private Integer parallelism;
        private Duration checkpointInterval;
        private Path flinkConfDir;
        private final Map<String, String> flinkOverrides = new LinkedHashMap<>();
        private final List<ProgressListener> listeners = new ArrayList<>();
        private PrintStream out = System.out;
        private boolean printProgress = true;
        private Boolean announce;
        private boolean webUi;
        private Duration leaseTime = Lease.DEFAULT_TIME;

        private Builder() {}

        /**
         * How long a run's lease of a checkpoint on an object store lasts without a renewal by its
         * client ({@link org.flinkss.runtime.checkpoint.CheckpointLock}): after a killed run, how
         * long the next one waits. {@link Lease#DEFAULT_TIME} unless set.
         */
        public Builder leaseTime(Duration leaseTime) {
            if (leaseTime.compareTo(Duration.ofSeconds(5)) < 0) {
                throw new IllegalArgumentException(
                        "a lease time of "
                                + leaseTime
                                + " is shorter than a few heartbeats of the client (2 s): give 5 s"
                                + " or more");
            }
            this.leaseTime = leaseTime;
            return this;
        }

        /**
         * Where runs keep their temporary files: {@code <tmpRoot>/<query>/<run>}, deleted when the
         * run ends, and what a killed run left there when the query's next run starts.
         */
        public Builder tmpRoot(Path tmpRoot) {
            this.tmpRoot = Objects.requireNonNull(tmpRoot);
            return this;
        }

        public Builder trigger(Trigger trigger) {
            this.trigger = Objects.requireNonNull(trigger);
            return this;
        }

        /** For triggers other than availableNow: stop with a savepoint after this long. */
        public Builder runFor(@Nullable Duration runFor) {
            this.runFor = runFor;
            return this;
        }

        /** The job's parallelism; the Flink configuration's if null. */
        public Builder parallelism(@Nullable Integer parallelism) {
            this.parallelism = parallelism;
            return this;
        }

        /** The checkpoint interval; if null, {@link RunSettings#checkpointInterval()}'s default. */
        public Builder checkpointInterval(@Nullable Duration interval) {
            this.checkpointInterval = interval;
            return this;
        }

        /**
         * A folder with Flink's {@code config.yaml}; found as {@code FlinkConfFile} says if null.
         */
        public Builder flinkConfDir(@Nullable Path dir) {
            this.flinkConfDir = dir;
            return this;
        }

        /** A Flink option set last, over the configuration file and the run's own. */
        public Builder flinkOption(String key, String value) {
            this.flinkOverrides.put(key, value);
            return this;
        }

        public Builder listener(ProgressListener listener) {
            this.listeners.add(Objects.requireNonNull(listener));
            return this;
        }

        /** Where the run prints its progress, notes and warnings. */
        public Builder out(PrintStream out) {
            this.out = Objects.requireNonNull(out);
            return this;
        }

        /**
         * Whether each batch's progress is printed, and which Flink configuration was read (once);
         * warnings are printed either way.
         */
        public Builder printProgress(boolean print) {
            this.printProgress = print;
            return this;
        }

        /**
         * Whether the run says, on {@link #out}, which Flink configuration it read (once per file)
         * and, when it runs on an embedded cluster, the cluster's REST address. Unless set, it does
         * when {@link #printProgress} is on.
         */
        public Builder announce(boolean announce) {
            this.announce = announce;
            return this;
        }

        /**
         * Whether an embedded cluster serves Flink's web UI where a user can find it again: on the
         * REST port of the Flink configuration ({@code rest.port}, {@code rest.bind-port}) instead
         * of a random one, announced as the web UI's address. Without it, the REST endpoint of an
         * embedded run takes any free port. No effect under {@code flink run}.
         */
        public Builder webUi(boolean webUi) {
            this.webUi = webUi;
            return this;
        }

        public RunSettings build() {
            Objects.requireNonNull(tmpRoot, "tmpRoot");
            return new RunSettings(this);
        }
    }
}
