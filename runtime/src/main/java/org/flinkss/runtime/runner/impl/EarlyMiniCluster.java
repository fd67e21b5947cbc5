package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.client.deployment.executors.LocalExecutor;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.PipelineExecutor;
import org.apache.flink.core.execution.PipelineExecutorFactory;
import org.apache.flink.core.execution.PipelineExecutorServiceLoader;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.minicluster.RpcServiceSharing;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.ExceptionUtils;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.net.URI;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;

/**
 * The embedded cluster of a {@code java -jar} run, started while the run builds its job.
 *
 * <p>Flink's own local executor builds the job graph first and only then creates and starts its
 * MiniCluster (about 0.8 s of a 2.5 s incremental run), on the same thread. This class starts a
 * MiniCluster as Flink's {@code PerJobMiniClusterFactory} would configure it (the run's
 * configuration, one TaskManager with a slot per parallel subtask, a shared RPC service, any free
 * REST port) in a thread of its own as soon as the run's configuration is known, and hands it to
 * Flink's {@link LocalExecutor} through the environment's executor: when the executor starts it,
 * the start waits for the early one to finish (and fails as it did). From there on everything is
 * Flink's: the job client, and the cluster's shutdown when the job ends.
 *
 * <p>If the job asks for another cluster (more slots than the parallelism said), the early one is
 * shut down and Flink's executor gets a new one as usual. A run that fails before it submits its
 * job must {@link #close()} it.
 */
@Internal
public final class EarlyMiniCluster implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EarlyMiniCluster.class);

    /**
     * The network buffers of a small local run. A local run's default is 64 MiB, allocated when the
     * TaskManager starts (2,048 direct buffers of 32 KiB: 0.19-0.27 s of the cluster's start on 2
     * cores, on the run's critical path, against 0.05-0.06 s for 16 MiB). A job of parallelism 4
     * with a shuffle into each of six operators needs about 300 buffers (two per input channel and
     * a few per gate and partition); 16 MiB is 512. Larger clusters keep Flink's default, and a
     * configuration that sets {@code taskmanager.memory.network.min/max} is used as it is.
     */
    static final MemorySize SMALL_NETWORK = MemorySize.ofMebiBytes(16);

    static final int SMALL_NETWORK_MAX_SLOTS = 4;

    private final Configuration conf;
    private final Starting cluster;
    private boolean handedOver;
    private boolean closedEarly;

    private EarlyMiniCluster(Configuration conf, Starting cluster) {
        this.conf = conf;
        this.cluster = cluster;
    }

    /**
     * Starts the cluster a local environment of {@code jobConf} would start for a job of that
     * parallelism.
     *
     * @param parallelism the job's parallelism, if the run gives one (else the configuration's,
     *     else the machine's cores, as a local environment has it)
     */
    public static EarlyMiniCluster start(Configuration jobConf, @Nullable Integer parallelism) {
        Configuration conf = new Configuration(jobConf);
        if (!conf.contains(CoreOptions.DEFAULT_PARALLELISM)) {
            conf.set(CoreOptions.DEFAULT_PARALLELISM, Runtime.getRuntime().availableProcessors());
        }
        // What a LocalStreamEnvironment sets.
        conf.set(DeploymentOptions.TARGET, "local");
        conf.set(DeploymentOptions.ATTACHED, true);
        int slots = parallelism != null ? parallelism : conf.get(CoreOptions.DEFAULT_PARALLELISM);
        Starting cluster = new Starting(clusterConfiguration(conf, slots));
        cluster.startInBackground();
        return new EarlyMiniCluster(conf, cluster);
    }

    /**
     * {@code PerJobMiniClusterFactory}'s configuration for a job whose largest parallelism is
     * {@code maxParallelism}.
     */
    static MiniClusterConfiguration clusterConfiguration(Configuration conf, int maxParallelism) {
        Configuration cluster = new Configuration(conf);
        if (!cluster.contains(RestOptions.BIND_PORT)) {
            cluster.set(RestOptions.BIND_PORT, "0");
        }
        int slots =
                cluster.getOptional(TaskManagerOptions.NUM_TASK_SLOTS)
                        .orElse(
                                Stream.concat(
                                                Stream.of(maxParallelism),
                                                cluster
                                                        .get(PipelineOptions.PARALLELISM_OVERRIDES)
                                                        .values()
                                                        .stream()
                                                        .map(Integer::parseInt))
                                        .max(Integer::compare)
                                        .orElse(maxParallelism));
        if (slots <= SMALL_NETWORK_MAX_SLOTS
                && !cluster.contains(TaskManagerOptions.NETWORK_MEMORY_MIN)
                && !cluster.contains(TaskManagerOptions.NETWORK_MEMORY_MAX)) {
            cluster.set(TaskManagerOptions.NETWORK_MEMORY_MIN, SMALL_NETWORK);
            cluster.set(TaskManagerOptions.NETWORK_MEMORY_MAX, SMALL_NETWORK);
        }
        return new MiniClusterConfiguration.Builder()
                .setConfiguration(cluster)
                .setNumTaskManagers(cluster.get(TaskManagerOptions.MINI_CLUSTER_NUM_TASK_MANAGERS))
                .setRpcServiceSharing(RpcServiceSharing.SHARED)
                .setNumSlotsPerTaskManager(slots)
                .build();
    }

    /** An environment whose jobs run on this cluster (the configuration of a local one). */
    public StreamExecutionEnvironment environment() {
        PipelineExecutorFactory factory =
                new PipelineExecutorFactory() {
                    @Override
                    public String getName() {
                        return LocalExecutor.NAME;
                    }

                    @Override
                    public boolean isCompatibleWith(Configuration configuration) {
                        return LocalExecutor.NAME.equalsIgnoreCase(
                                configuration.get(DeploymentOptions.TARGET));
                    }

                    @Override
                    public PipelineExecutor getExecutor(Configuration configuration) {
                        return LocalExecutor.createWithFactory(configuration, this::clusterFor);
                    }

                    private MiniCluster clusterFor(MiniClusterConfiguration wanted) {
                        return handOver(wanted);
                    }
                };
        PipelineExecutorServiceLoader loader =
                new PipelineExecutorServiceLoader() {
                    @Override
                    public PipelineExecutorFactory getExecutorFactory(Configuration configuration) {
                        return factory;
                    }

                    @Override
                    public Stream<String> getExecutorNames() {
                        return Stream.of(LocalExecutor.NAME);
                    }
                };
        return new StreamExecutionEnvironment(
                loader, new Configuration(conf), EarlyMiniCluster.class.getClassLoader());
    }

    private synchronized MiniCluster handOver(MiniClusterConfiguration wanted) {
        if (handedOver
                || wanted.getNumTaskManagers() != cluster.configuration.getNumTaskManagers()
                || slots(wanted) > slots(cluster.configuration)) {
            LOG.info(
                    "The job needs another embedded cluster than the one started early ({}): a"
                            + " new one is started",
                    wanted);
            close();
            return new MiniCluster(wanted);
        }
        handedOver = true;
        return cluster;
    }

    private static int slots(MiniClusterConfiguration c) {
        return c.getConfiguration().get(TaskManagerOptions.NUM_TASK_SLOTS);
    }

    /** Whether a job has taken the early cluster. */
    synchronized boolean handedOver() {
        return handedOver && !closedEarly;
    }

    /** Whether the cluster started early runs. */
    boolean earlyClusterRunning() {
        return cluster.isRunning();
    }

    /** The early cluster's REST address, once it has started. */
    CompletableFuture<URI> restAddress() {
        return cluster.started.thenCompose(ok -> cluster.getRestAddress());
    }

    /**
     * Shuts the cluster down, in the background. One that a job has is shut down by Flink's job
     * client when the job ends; closing it here too ends it when the run ends first (it failed
     * while its job ran), so that the process need not wait for it ({@code EmbeddedClusters}).
     */
    @Override
    public synchronized void close() {
        if (!handedOver) {
            handedOver = true;
            closedEarly = true;
            // After its start, whether it succeeded or not: a half-started cluster closes too.
            cluster.started.handle((ok, error) -> cluster.closeAsync());
        } else if (!closedEarly) {
            cluster.closeAsync();
        }
    }

    /** A MiniCluster whose {@link #start()} waits for the start begun in the background. */
    private static final class Starting extends MiniCluster {

        private final MiniClusterConfiguration configuration;
        private final CompletableFuture<Void> started = new CompletableFuture<>();

        Starting(MiniClusterConfiguration configuration) {
            super(configuration);
            this.configuration = configuration;
        }

        void startInBackground() {
            Thread thread =
                    new Thread(
                            () -> {
                                try {
                                    startNow();
                                    started.complete(null);
                                } catch (Throwable t) {
                                    started.completeExceptionally(t);
                                }
                            },
                            "flinkss-early-minicluster");
            thread.setDaemon(true);
            thread.start();
        }

        private void startNow() throws Exception {
            super.start();
        }

        @Override
        public void start() throws Exception {
            try {
                started.get();
            } catch (ExecutionException e) {
                ExceptionUtils.rethrowException(e.getCause());
            }
        }
    }
}
