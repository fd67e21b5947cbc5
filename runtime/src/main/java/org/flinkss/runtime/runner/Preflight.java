package org.flinkss.runtime.runner;

import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.transformations.SourceTransformation;
import org.apache.flink.util.FileUtils;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.IdentityStore;
import org.flinkss.runtime.checkpoint.ResetMarker;
import org.flinkss.runtime.checkpoint.RestorePoints;
import org.flinkss.runtime.checkpoint.WarehouseBinding;
import org.flinkss.runtime.progress.RunScope;
import org.flinkss.runtime.runner.impl.DamagedRestorePoints;
import org.flinkss.runtime.runner.impl.JobConfiguration;
import org.flinkss.runtime.runner.impl.RelocatedRestorePoints;
import org.flinkss.runtime.runner.impl.RestorePolicy;
import org.flinkss.runtime.source.impl.MicroBatchSource;
import org.flinkss.runtime.source.impl.SourcePreview;
import org.flinkss.runtime.state.RestoredOperators;
import org.flinkss.runtime.time.WatermarkPolicy;

import javax.annotation.Nullable;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * A restore preflight ({@code run <query> --dry-run}): what the next run of a query would do, said
 * before anything runs, writing nothing under the base or the warehouse. The restore point it would
 * use, whether the checkpoint serves this query (or the run would be refused, and why), what each
 * source would read next under the run's limits, and for each operator with state in the restore
 * point whether the job takes it over. The checks are {@link QueryRun}'s own, without their side
 * effects: no lock is taken, no damaged restore point moved, no identity claimed.
 */
public final class Preflight {

    private final String name;
    private final CheckpointLayout layout;
    private final RunSettings settings;
    @Nullable private final Path warehouse;

    /** As {@link QueryRun#QueryRun}. */
    public Preflight(
            String name, CheckpointLayout layout, RunSettings settings, @Nullable Path warehouse) {
        this.name = name;
        this.layout = layout;
        this.settings = settings;
        this.warehouse = warehouse;
    }

    /** Builds the query's job (without running it) and returns what a run would do. */
    public PreflightReport check(JobBuilder builder) {
        PreflightReport report = new PreflightReport(name, layout.toString());
        Optional<ResetMarker> reset = ResetMarker.read(layout);
        if (reset.isPresent()) {
            report.refuse(reset.get().wayOut());
        }
        IdentityStore identity = new IdentityStore(layout);
        try {
            identity.checkLayout(name);
            if (warehouse != null) {
                new WarehouseBinding(layout).check(name, warehouse);
            }
        } catch (QueryException e) {
            report.refuse(e.getMessage());
        }
        Optional<Path> restore = restorePoint(report);
        File tmp = null;
        try {
            tmp = Files.createTempDirectory("flinkss-dry-run-").toFile();
            Configuration conf =
                    settings.jobConfiguration(
                                    layout,
                                    JobConfiguration.flinkRunClient(),
                                    new PrintStream(new ByteArrayOutputStream()),
                                    false)
                            .build(Optional.empty(), tmp, settings.parallelism);
            // The run's own kind of environment (under flink run or a test's cluster, theirs):
            // only its graph is built, nothing is executed.
            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.getExecutionEnvironment(conf);
            if (settings.parallelism != null) {
                env.setParallelism(settings.parallelism);
            }
            BuiltJob job =
                    builder.build(
                            env,
                            new RunScope(
                                    layout,
                                    UUID.randomUUID().toString(),
                                    RunSettings.CLIENT_TIMEOUT));
            identity.check(job.identity()).ifPresent(report::refuse);
            job.tableRefusals().forEach(report::refuse);
            // --until-final: whether each Delta table read is final up to T yet, as the run
            // would find it; a table that is not is what the run waits for (it would refuse).
            job.untilFinalRefusals().forEach(report::refuse);
            job.untilFinalNotes().forEach(report::note);
            job.commitsBeforeRun().forEach(c -> report.note("before the job, would commit: " + c));
            String policy = job.identity().conf().get(WatermarkPolicy.SPARK_CONF);
            if (policy != null) {
                // A query with several watermark nodes: the policy its checkpoint keeps.
                report.note(
                        "watermark policy: "
                                + policy
                                + " ("
                                + WatermarkPolicy.SPARK_CONF
                                + "; kept in the checkpoint)");
            }
            List<Transformation<?>> transformations = all(env.getTransformations());
            JobGraph graph = env.getStreamGraph(false).getJobGraph();
            RestoredOperators restored =
                    restore.map(p -> RestoredOperators.of(layout, p)).orElse(null);
            if (restored != null) {
                report.restorePoint(restored.point().describe());
                report.operators(restored.against(graph, uids(transformations)));
            }
            for (Transformation<?> t : transformations) {
                if (t instanceof SourceTransformation<?, ?, ?> source) {
                    preview(source.getSource(), t.getUid(), restored, report);
                }
            }
        } catch (IOException | IllegalStateException e) {
            // The query's own errors (a bad statement, an option it refuses) go to the caller as
            // a run's would; these are the restore point's or a source's.
            report.refuse(String.valueOf(e.getMessage()).split("\n")[0]);
        } finally {
            if (tmp != null) {
                FileUtils.deleteDirectoryQuietly(tmp);
            }
        }
        return report;
    }

    /** The restore point the run would choose, as {@link QueryRun} chooses it, moving nothing. */
    private Optional<Path> restorePoint(PreflightReport report) {
        RestorePoints points = new RestorePoints(layout);
        PrintStream notes = new PrintStream(new ByteArrayOutputStream(), true);
        List<String> damaged =
                new DamagedRestorePoints(layout, points, name, notes).wouldSetAside();
        damaged.forEach(report::note);
        Optional<Path> chosen;
        if (damaged.isEmpty()) {
            ByteArrayOutputStream said = new ByteArrayOutputStream();
            chosen =
                    new RestorePolicy(
                                    points,
                                    layout.location(),
                                    JobConfiguration.flinkRunClient(),
                                    new PrintStream(said, true, StandardCharsets.UTF_8))
                            .choose();
            said.toString(StandardCharsets.UTF_8).lines().forEach(report::note);
        } else {
            List<Path> all = points.all();
            int readable = all.size() - 1 - damaged.size();
            chosen = readable >= 0 ? Optional.of(all.get(readable)) : Optional.empty();
        }
        ByteArrayOutputStream said = new ByteArrayOutputStream();
        chosen =
                new RelocatedRestorePoints(
                                layout,
                                points,
                                name,
                                new PrintStream(said, true, StandardCharsets.UTF_8))
                        .usable(chosen);
        said.toString(StandardCharsets.UTF_8).lines().forEach(report::note);
        return chosen;
    }

    private <S extends org.flinkss.runtime.source.WorkSplit> void preview(
            Source<?, ?, ?> source,
            @Nullable String uid,
            @Nullable RestoredOperators restored,
            PreflightReport report)
            throws IOException {
        if (!(source instanceof MicroBatchSource<?, ?> microBatch)) {
            return;
        }
        byte[] state =
                restored == null || uid == null
                        ? null
                        : restored.coordinatorState(uid).orElse(null);
        report.source(SourcePreview.of(microBatch, state));
    }

    /** Every transformation of the job, the sinks' inputs included, each once. */
    private static List<Transformation<?>> all(List<Transformation<?>> sinks) {
        Set<Transformation<?>> found = new LinkedHashSet<>();
        for (Transformation<?> t : sinks) {
            found.addAll(t.getTransitivePredecessors());
        }
        return new ArrayList<>(found);
    }

    private static List<String> uids(List<Transformation<?>> transformations) {
        List<String> uids = new ArrayList<>();
        for (Transformation<?> t : transformations) {
            if (t.getUid() != null) {
                uids.add(t.getUid());
            }
        }
        return uids;
    }
}
