package org.flinkss.jobs.recovery;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.queries.BronzeITCase;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.course.queries.QueryCatalog;
import org.flinkss.runtime.ops.QueryReset;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A run's temporary files ({@code <base>/_tmp/<query>/<run>}, RocksDB's working copies among them)
 * go when it ends, and what a killed run of the same query left there goes when the next one
 * starts, or with {@code reset} of the query; another query's are not touched, nor anything in the
 * folder that is not a run's.
 */
class RunTmpFilesITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path base;

    /** The folders of a killed run of bronze, and of a running one of silver (run ids). */
    private static final String KILLED = "0b7c9e64-3c1a-4d55-9a0e-5f1f3c2d9a10";

    private static final String RUNNING = "6f2d1a8e-9b47-4c3e-8d21-7a5b6c4e3f29";

    @Test
    void theNextRunRemovesWhatAKilledRunOfTheSameQueryLeftInTmp() throws Exception {
        RunOptions options = BronzeITCase.options(base, 2);
        EventFiles.writeBatch(options.events(), 1, EventGenerator.events(0, 500));
        // Step 1: what a killed driver of bronze leaves, and a running query's own folder.
        Path killed = Files.createDirectories(base.resolve("_tmp/bronze/" + KILLED + "/rocksdb"));
        Files.writeString(killed.resolve("000001.sst"), "x".repeat(1000));
        Path otherQuery = Files.createDirectories(base.resolve("_tmp/silver/" + RUNNING));
        Files.writeString(otherQuery.resolve("in-use"), "x");

        // Step 2: the next run of bronze.
        QueryRunner.Result run = QueryRunner.run(new BronzeQuery(options.events()), options);

        assertThat(run.numInputRows()).isEqualTo(500);
        assertThat(base.resolve("_tmp/bronze")).doesNotExist();
        assertThat(otherQuery.resolve("in-use")).exists();
    }

    @Test
    void resetRemovesWhatKilledRunsOfTheQueryLeftInTmpAndNothingElse() throws Exception {
        RunOptions options = BronzeITCase.options(base, 2);
        EventFiles.writeBatch(options.events(), 1, EventGenerator.events(0, 500));
        QueryRunner.run(new BronzeQuery(options.events()), options);
        // Step 1: what a killed run of bronze left, a user's file beside it, and silver's folder.
        Path killed = Files.createDirectories(base.resolve("_tmp/bronze/" + KILLED + "/rocksdb"));
        Files.writeString(killed.resolve("000001.sst"), "x".repeat(1000));
        Path notes = Files.writeString(base.resolve("_tmp/bronze/notes.txt"), "mine");
        Path otherQuery = Files.createDirectories(base.resolve("_tmp/silver/" + RUNNING));
        Files.writeString(otherQuery.resolve("in-use"), "x");

        // Step 2: reset bronze.
        QueryReset.reset(
                Storage.location(base.toFile()),
                new Warehouse(options.warehouse()),
                options.database(),
                QueryCatalog.BRONZE.queryName());

        assertThat(base.resolve("_tmp/bronze/" + KILLED)).doesNotExist();
        assertThat(notes).hasContent("mine");
        assertThat(otherQuery.resolve("in-use")).exists();
    }
}
