package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.client.program.StreamContextEnvironment;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.storage.Storage;

import javax.annotation.Nullable;

import java.io.File;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Flink configuration of one run. The deployment's settings come from a file: an embedded run
 * reads {@code config.yaml} ({@link FlinkConfFile}); under {@code flink run} the client has read
 * its own, with its command-line options, and they win. On top, only what belongs to this query or
 * this run: its checkpoint and savepoint directories, the state it restores, the checkpoint
 * interval its trigger asks for, its temporary folder, an embedded cluster's REST port, and the
 * overrides the run was given.
 */
@Internal
public final class JobConfiguration {

    /** The configuration files announced in this process: each is named once, not at every run. */
    private static final Set<String> ANNOUNCED = ConcurrentHashMap.newKeySet();

    private final CheckpointLayout layout;
    private final Duration checkpointInterval;
    private final FlinkOverrides overrides;
    @Nullable private final File confDir;
    @Nullable private final ReadableConfig flinkRunClient;
    private final PrintStream out;
    private final boolean announce;
    private boolean webUi;

    /**
     * @param confDir a folder with {@code config.yaml} to read instead of looking for one, or null
     * @param flinkRunClient the configuration of {@code flink run}'s client ({@link
     *     #flinkRunClient()}), or null for an embedded run
     * @param announce whether to print which configuration was read (once per file and process)
     */
    public JobConfiguration(
            CheckpointLayout layout,
            Duration checkpointInterval,
            Map<String, String> overrides,
            @Nullable File confDir,
            @Nullable ReadableConfig flinkRunClient,
            PrintStream out,
            boolean announce) {
        this.layout = layout;
        this.checkpointInterval = checkpointInterval;
        this.overrides = new FlinkOverrides(overrides);
        this.confDir = confDir;
        this.flinkRunClient = flinkRunClient;
        this.out = out;
        this.announce = announce;
    }

    /**
     * Whether an embedded cluster keeps the REST port of the configuration file (where its web UI
     * is found again) instead of taking any free port.
     */
    public JobConfiguration servingWebUi(boolean webUi) {
        this.webUi = webUi;
        return this;
    }

    /**
     * The configuration of {@code flink run}'s client when this program runs under it (its
     * environment is then a {@link StreamContextEnvironment} that holds the client's conf dir and
     * command-line options: {@code -m}, {@code -p}, {@code -s}); null for an embedded run.
     */
    @Nullable
    public static ReadableConfig flinkRunClient() {
        StreamExecutionEnvironment probe = StreamExecutionEnvironment.getExecutionEnvironment();
        return probe instanceof StreamContextEnvironment ? probe.getConfiguration() : null;
    }

    /**
     * The run's Flink configuration. An embedded cluster gets at least as many task slots as the
     * job's parallelism needs (its one TaskManager would otherwise wait for slots that never come,
     * then fail over in a loop).
     *
     * @param restore the state to restore, if any, on any storage (a local folder or an object
     *     store), as {@link org.flinkss.runtime.checkpoint.RestorePoints} names it
     * @param tmp the run's own temporary folder (local: the embedded cluster's working files)
     * @param parallelism the job's parallelism if the run sets it, or null for the configuration's
     */
    public Configuration build(Optional<Path> restore, File tmp, @Nullable Integer parallelism) {
        return configuration(
                restore.map(
                        p ->
                                Storage.isLocal(p)
                                        ? Storage.localFile(p, "a restore point")
                                                .toPath()
                                                .toUri()
                                                .toString()
                                        : p.toString()),
                tmp,
                parallelism);
    }

    private Configuration configuration(
            Optional<String> restore, File tmp, @Nullable Integer parallelism) {
        Configuration conf;
        if (flinkRunClient != null) {
            // Loading a config.yaml here would override the client's, since the program's
            // settings win over the client's (-p, -m).
            conf = new Configuration();
            announce("flink configuration: the flink run client's (its conf dir and options)");
        } else {
            FlinkConfFile file = FlinkConfFile.locate(confDir == null ? null : confDir.toPath());
            conf = file.load(tmp.toPath());
            announce(file.describe());
            if (!webUi) {
                // An embedded cluster must not take the web UI port of a real one running beside
                // it: any free port, announced when the run starts.
                conf.set(RestOptions.BIND_PORT, "0");
                conf.removeConfig(RestOptions.PORT);
            }
            // The file is a cluster's too: its process sizes mean nothing to an embedded
            // cluster, which lives in this JVM, and Flink warned at every run that they do not.
            conf.removeConfig(TaskManagerOptions.TOTAL_PROCESS_MEMORY);
            conf.removeConfig(JobManagerOptions.TOTAL_PROCESS_MEMORY);
        }
        conf.set(CoreOptions.TMP_DIRS, tmp.toString());
        // On an object store Flink writes them through its S3 file system itself.
        conf.set(
                CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                layout.isObjectStore()
                        ? layout.checkpoints().toString()
                        : layout.checkpoints().toUri().toString());
        conf.set(
                CheckpointingOptions.SAVEPOINT_DIRECTORY,
                layout.isObjectStore()
                        ? layout.savepoints().toString()
                        : layout.savepoints().toUri().toString());
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, checkpointInterval);
        restore.ifPresent(p -> conf.set(StateRecoveryOptions.SAVEPOINT_PATH, p));
        overrides.applyTo(conf, flinkRunClient == null);
        if (flinkRunClient == null) {
            int needed =
                    parallelism != null ? parallelism : conf.get(CoreOptions.DEFAULT_PARALLELISM);
            if (conf.get(TaskManagerOptions.NUM_TASK_SLOTS) < needed) {
                conf.set(TaskManagerOptions.NUM_TASK_SLOTS, needed);
            }
        }
        return conf;
    }

    private void announce(String line) {
        if (announce && ANNOUNCED.add(line)) {
            out.println(line);
        }
    }
}
