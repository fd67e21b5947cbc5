package org.flinkss.runtime.query;

import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.expect.Expectation;
import org.flinkss.runtime.progress.ProgressListener;
import org.flinkss.runtime.runner.RunSettings;
import org.flinkss.runtime.sink.jdbc.Database;
import org.flinkss.runtime.source.ReadLimit;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.time.WatermarkPolicy;
import org.flinkss.runtime.trigger.Trigger;

import javax.annotation.Nullable;

import java.io.File;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * How to run a query: where, with which trigger, and how to report. Built with {@link #builder()}.
 */
public final class RunOptions {

    /** The base: a local folder ({@code file:/...}) or {@code s3://bucket/prefix}. */
    final Path base;

    /** The warehouse: a local folder or {@code s3://bucket/prefix}; {@code <base>/warehouse}. */
    final Path warehouse;

    final ReadLimit readLimit;
    final boolean skipMissingFiles;
    @Nullable final String jdbcUrl;
    final OutputMode outputMode;

    /** Data-quality rules on the rows written ({@code --expect}); not part of the identity. */
    final List<Expectation> expectations;

    /** How the runner runs the job: the part of these options that is not the query's. */
    final RunSettings runSettings;

    final Trigger trigger;

    /** {@code --until-final T}: the Delta tables read must be final up to it, or null. */
    @Nullable final Instant untilFinal;

    /**
     * How a query with several watermark nodes picks its watermark ({@code --watermark-policy}).
     */
    final WatermarkPolicy watermarkPolicy;

    private RunOptions(Builder b) {
        this.base = normalized(b.base, "a base");
        this.warehouse =
                b.warehouse != null
                        ? normalized(b.warehouse, "a warehouse")
                        : normalized(new Path(base, "warehouse"), "a warehouse");
        this.readLimit = b.readLimit;
        this.skipMissingFiles = b.skipMissingFiles;
        this.jdbcUrl = b.jdbcUrl;
        this.outputMode = b.outputMode;
        this.expectations = List.copyOf(b.expectations);
        this.watermarkPolicy = b.watermarkPolicy;
        // A run's temporary files are local: beside a local base, else in the JVM's temp folder.
        this.runSettings = b.run.tmpRoot(tmpRootOf(base).toPath()).build();
        this.trigger = runSettings.trigger();
        this.untilFinal = b.untilFinal;
    }

    /** The expectations on the rows written ({@code --expect}), in the order given. */
    public List<Expectation> expectations() {
        return expectations;
    }

    /** Spark's {@code multipleWatermarkPolicy} ({@code --watermark-policy}): min unless set. */
    public WatermarkPolicy watermarkPolicy() {
        return watermarkPolicy;
    }

    /** Spark's {@code outputMode}: append unless set. */
    public OutputMode outputMode() {
        return outputMode;
    }

    /**
     * A local location absolute and normalized, named as every earlier version named it (so that
     * what a checkpoint recorded of it still matches); any other as it is.
     */
    private static Path normalized(Path location, String what) {
        return Storage.isLocal(location)
                ? Storage.location(Storage.localFile(location, what))
                : location;
    }

    /**
     * Whether the run was given a database ({@code --jdbc-url}): then a query that upserts may
     * write it rather than a Delta table.
     */
    public boolean hasJdbcUrl() {
        return jdbcUrl != null;
    }

    /**
     * The SQL database of upsert tables: --jdbc-url, else SQLite in {@code
     * <warehouse>/warehouse.db}.
     */
    public Database database() {
        // The SQLite file stays local: <base>/warehouse beside a warehouse on an object store.
        if (jdbcUrl != null) {
            return new Database(jdbcUrl);
        }
        Path folder = Storage.isLocal(warehouse) ? warehouse : new Path(base, "warehouse");
        if (!Storage.isLocal(folder)) {
            throw new IllegalArgumentException(
                    "the SQLite database of upsert tables is a local file, and both --base "
                            + base
                            + " and --warehouse "
                            + warehouse
                            + " are on an object store: give --jdbc-url (PostgreSQL), or a local"
                            + " --warehouse to hold warehouse.db (docs/object-storage.md)");
        }
        return Database.sqliteIn(
                Storage.localFile(folder, "the SQLite database's folder").toPath());
    }

    /**
     * Where runs of the base {@code base} keep their temporary files ({@code RunTmpFolders}):
     * {@code <base>/_tmp} for a local base; for one on an object store, a folder of the JVM's temp
     * folder, one per base, so that a cleanup after a kill never reaches another base's.
     */
    public static File tmpRootOf(Path base) {
        // Local files: the embedded cluster's working folders, whose local disk is the point.
        if (Storage.isLocal(base)) {
            return new File(Storage.localFile(base, "a base"), "_tmp");
        }
        String name = Integer.toHexString(base.toString().hashCode());
        return new File(new File(System.getProperty("java.io.tmpdir"), "flinkss-" + name), "_tmp");
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The base: landing folder {@code <base>/events} and checkpoints {@code <base>/_cp/<query>}; a
     * local folder ({@code file:/...}) or {@code s3://bucket/prefix}.
     */
    public Path base() {
        return base;
    }

    /**
     * The landing folder of the course's generator, wherever the base is, named exactly as a query
     * given that folder names it.
     */
    public Path events() {
        return normalized(new Path(base, "events"), "the landing folder");
    }

    /** The tables: a local folder or {@code s3://bucket/prefix}. */
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

    public CheckpointLayout checkpointOf(String query) {
        return CheckpointLayout.of(base, query);
    }

    /** Builds {@link RunOptions}; every setting has the course's default. */
    public static final class Builder {
        private Path base = Storage.location("data");
        @Nullable private Path warehouse;
        private final RunSettings.Builder run = RunSettings.builder();
        private ReadLimit readLimit = ReadLimit.none();
        private boolean skipMissingFiles;
        private String jdbcUrl;
        private OutputMode outputMode = OutputMode.APPEND;
        private List<Expectation> expectations = List.of();
        @Nullable private Instant untilFinal;
        private WatermarkPolicy watermarkPolicy = WatermarkPolicy.DEFAULT;

        /**
         * Landing folder {@code <base>/events} and checkpoints {@code <base>/_cp/<query>}: a local
         * folder or {@code s3://b/prefix} (its checkpoints then on the object store too).
         */
        public Builder base(Path base) {
            this.base = base;
            return this;
        }

        /**
         * Tables, anywhere Flink's file systems reach: a local folder or {@code s3://b/prefix};
         * {@code <base>/warehouse} unless set.
         */
        public Builder warehouse(Path warehouse) {
            this.warehouse = warehouse;
            return this;
        }

        public Builder trigger(Trigger trigger) {
            run.trigger(trigger);
            return this;
        }

        public Builder parallelism(Integer parallelism) {
            run.parallelism(parallelism);
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
            run.checkpointInterval(interval);
            return this;
        }

        /**
         * How long the checkpoint's lease lasts without renewal on an object store ({@link
         * RunSettings.Builder#leaseTime}): a run killed with SIGKILL holds it that long.
         */
        public Builder leaseTime(Duration leaseTime) {
            run.leaseTime(leaseTime);
            return this;
        }

        /**
         * A folder with Flink's {@code config.yaml}; by default $FLINK_CONF_DIR, else ./flink-conf,
         * else the one beside the jar, else the copy built into the jar. A local folder: Flink
         * reads it with {@code java.io}.
         */
        public Builder flinkConfDir(File dir) {
            run.flinkConfDir(dir.toPath());
            return this;
        }

        /**
         * A Flink option for this run's job ({@code -D key=value}): set over the configuration file
         * and over the run's own settings; the keys that belong to the query's checkpoint are
         * refused when the run starts, naming the option that sets them.
         */
        public Builder flinkOption(String key, String value) {
            run.flinkOption(key, value);
            return this;
        }

        /** {@link RunSettings.Builder#announce}. */
        public Builder announce(boolean announce) {
            run.announce(announce);
            return this;
        }

        /** {@link RunSettings.Builder#webUi}. */
        public Builder webUi(boolean webUi) {
            run.webUi(webUi);
            return this;
        }

        public Builder listener(ProgressListener listener) {
            run.listener(listener);
            return this;
        }

        public Builder out(PrintStream out) {
            run.out(out);
            return this;
        }

        public Builder printProgress(boolean print) {
            run.printProgress(print);
            return this;
        }

        /**
         * For processing-time and continuous triggers: stop with a savepoint after this long
         * (Spark's {@code awaitTermination(timeout)} then {@code stop()}); without it they run
         * until the process is interrupted.
         */
        public Builder runFor(Duration duration) {
            run.runFor(duration);
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

        /**
         * Expectations on the rows the query appends ({@link Expectation}): checked in every batch,
         * counted in progress. They may change from run to run, as Lakeflow's do.
         */
        /**
         * {@code --until-final T}: the run goes on only if every Delta table it reads (a table this
         * project wrote) records in its newest batch commit that its windows ending at or before
         * {@code t} are final ({@code flinkss.finalBefore >= t}); otherwise it is refused before
         * any data moves, naming the table, {@code t} and how far the table is final. Null: no such
         * condition.
         */
        public Builder untilFinal(@Nullable Instant t) {
            this.untilFinal = t;
            return this;
        }

        public Builder expectations(List<Expectation> rules) {
            this.expectations = List.copyOf(rules);
            return this;
        }

        /**
         * Spark's {@code spark.sql.streaming.multipleWatermarkPolicy} for a query with several
         * watermark nodes: {@link WatermarkPolicy#MIN} unless set. Recorded in the query's
         * checkpoint at its first run; a run with another policy is refused. A query with fewer
         * than two nodes refuses {@code max} (it would change nothing).
         */
        public Builder watermarkPolicy(WatermarkPolicy policy) {
            this.watermarkPolicy = policy;
            return this;
        }

        public RunOptions build() {
            return new RunOptions(this);
        }
    }
}
