package org.flinkss.runtime.query;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.jdbc.Database;
import org.flinkss.runtime.progress.ProgressListener;
import org.flinkss.runtime.runner.RunSettings;
import org.flinkss.runtime.source.ReadLimit;
import org.flinkss.runtime.trigger.Trigger;

import javax.annotation.Nullable;

import java.io.PrintStream;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How to run a query: where, with which trigger, and how to report. Built with {@link #builder()}.
 */
public final class RunOptions {

    final Path base;
    final Path warehouse;
    final Trigger trigger;
    @Nullable final Integer parallelism;
    final ReadLimit readLimit;
    final boolean skipMissingFiles;
    @Nullable final Duration checkpointInterval;
    @Nullable final Path flinkConfDir;
    final Map<String, String> flinkOverrides;
    final List<ProgressListener> listeners;
    final PrintStream out;
    final boolean printProgress;
    @Nullable final Duration runFor;
    @Nullable final String jdbcUrl;
    final OutputMode outputMode;

    private RunOptions(Builder b) {
        this.base = b.base.toAbsolutePath().normalize();
        this.warehouse =
                (b.warehouse != null ? b.warehouse : b.base.resolve("warehouse"))
                        .toAbsolutePath()
                        .normalize();
        this.trigger = b.trigger;
        this.parallelism = b.parallelism;
        this.readLimit = b.readLimit;
        this.skipMissingFiles = b.skipMissingFiles;
        this.checkpointInterval = b.checkpointInterval;
        this.flinkConfDir = b.flinkConfDir;
        this.flinkOverrides = Map.copyOf(b.flinkOverrides);
        this.listeners = List.copyOf(b.listeners);
        this.out = b.out;
        this.printProgress = b.printProgress;
        this.runFor = b.runFor;
        this.jdbcUrl = b.jdbcUrl;
        this.outputMode = b.outputMode;
    }

    /** Spark's {@code outputMode}: append unless set. */
    public OutputMode outputMode() {
        return outputMode;
    }

    /**
     * The SQL database of upsert tables: --jdbc-url, else SQLite in {@code
     * <warehouse>/warehouse.db}.
     */
    public Database database() {
        return jdbcUrl != null ? new Database(jdbcUrl) : Database.sqliteIn(warehouse);
    }

    public static Builder builder() {
        return new Builder();
    }

    public Path base() {
        return base;
    }

    public Path warehouse() {
        return warehouse;
    }

    public Trigger trigger() {
        return trigger;
    }

    /** How much one batch of each source may read. */
    public ReadLimit readLimit() {
        return readLimit;
    }

    /** The landing folder of the course's generator. */
    public Path events() {
        return base.resolve("events");
    }

    public CheckpointLayout checkpointOf(String query) {
        return CheckpointLayout.of(base, query);
    }

    /** How the runner runs the job: the part of these options that is not the query's. */
    RunSettings runSettings() {
        return RunSettings.builder(base.resolve("_tmp"))
                .trigger(trigger)
                .runFor(runFor)
                .parallelism(parallelism)
                .checkpointInterval(checkpointInterval)
                .flinkConfDir(flinkConfDir)
                .flinkOptions(flinkOverrides)
                .listeners(listeners)
                .out(out)
                .printProgress(printProgress)
                .build();
    }

    /** Builds {@link RunOptions}; every setting has the course's default. */
    public static final class Builder {
        private Path base = Paths.get("data");
        private Path warehouse;
        private Trigger trigger = Trigger.availableNow();
        private Integer parallelism;
        private ReadLimit readLimit = ReadLimit.none();
        private boolean skipMissingFiles;
        private Duration checkpointInterval;
        private Path flinkConfDir;
        private final Map<String, String> flinkOverrides = new LinkedHashMap<>();
        private final List<ProgressListener> listeners = new ArrayList<>();
        private PrintStream out = System.out;
        private boolean printProgress = true;
        private Duration runFor;
        private String jdbcUrl;
        private OutputMode outputMode = OutputMode.APPEND;

        /** Landing folder {@code <base>/events} and checkpoints {@code <base>/_cp/<query>}. */
        public Builder base(Path base) {
            this.base = base;
            return this;
        }

        /** Tables; {@code <base>/warehouse} unless set. */
        public Builder warehouse(Path warehouse) {
            this.warehouse = warehouse;
            return this;
        }

        public Builder trigger(Trigger trigger) {
            this.trigger = trigger;
            return this;
        }

        public Builder parallelism(Integer parallelism) {
            this.parallelism = parallelism;
            return this;
        }

        /** The rate limits of every source; {@link ReadLimit#none()} unless set. */
        public Builder readLimit(ReadLimit limit) {
            this.readLimit = limit;
            return this;
        }

        /**
         * Spark's {@code maxFilesPerTrigger}: at most this many files (or partitions) per batch.
         *
         * @throws IllegalArgumentException unless {@code max} is positive (Spark's message)
         */
        public Builder maxFilesPerTrigger(int max) {
            this.readLimit = readLimit.withMaxFilesPerTrigger(max);
            return this;
        }

        /**
         * Spark's {@code maxBytesPerTrigger} for file sources: a batch takes files while it stays
         * within this many bytes, one file at least. Works with the file limit.
         *
         * @throws IllegalArgumentException unless {@code max} is positive (Spark's message)
         */
        public Builder maxBytesPerTrigger(long max) {
            this.readLimit = readLimit.withMaxBytesPerTrigger(max);
            return this;
        }

        /**
         * Spark's {@code maxOffsetsPerTrigger} for Kafka sources: at most this many offsets per
         * batch, split over partitions.
         *
         * @throws IllegalArgumentException unless {@code max} is positive (Spark's message)
         */
        public Builder maxOffsetsPerTrigger(long max) {
            this.readLimit = readLimit.withMaxOffsetsPerTrigger(max);
            return this;
        }

        /**
         * Spark's {@code ignoreMissingFiles}, recorded: a landing file that a batch planned but
         * that is gone when read is skipped instead of failing the run, and recorded once in the
         * batch's progress ({@code sources[].skippedFiles}) and in the query's {@code
         * <table>_skipped_files} table, with a warning. A skipped file is not read later, even if
         * it comes back.
         */
        public Builder skipMissingFiles(boolean skip) {
            this.skipMissingFiles = skip;
            return this;
        }

        public Builder checkpointInterval(Duration interval) {
            this.checkpointInterval = interval;
            return this;
        }

        /**
         * A folder with Flink's {@code config.yaml}; by default $FLINK_CONF_DIR, else ./flink-conf,
         * else the one beside the jar, else the copy built into the jar.
         */
        public Builder flinkConfDir(Path dir) {
            this.flinkConfDir = dir;
            return this;
        }

        public Builder flinkOption(String key, String value) {
            this.flinkOverrides.put(key, value);
            return this;
        }

        public Builder listener(ProgressListener listener) {
            this.listeners.add(listener);
            return this;
        }

        public Builder out(PrintStream out) {
            this.out = out;
            return this;
        }

        public Builder printProgress(boolean print) {
            this.printProgress = print;
            return this;
        }

        /**
         * For processing-time and continuous triggers: stop with a savepoint after this long
         * (Spark's {@code awaitTermination(timeout)} then {@code stop()}); without it they run
         * until the process is interrupted.
         */
        public Builder runFor(Duration duration) {
            this.runFor = duration;
            return this;
        }

        /**
         * The database of upsert tables (jdbc:sqlite:... or jdbc:postgresql://...), credentials not
         * included.
         */
        public Builder jdbcUrl(String url) {
            this.jdbcUrl = url;
            return this;
        }

        /**
         * Append (the default), update or complete; each query accepts the modes that make sense
         * for it.
         */
        public Builder outputMode(OutputMode mode) {
            this.outputMode = mode;
            return this;
        }

        public RunOptions build() {
            return new RunOptions(this);
        }
    }
}
