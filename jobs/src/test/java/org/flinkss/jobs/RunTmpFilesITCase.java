package org.flinkss.jobs;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A run's temporary files ({@code <base>/_tmp/<query>/<run>}, RocksDB's working copies among them)
 * go when it ends, and what a killed run of the same query left there goes when the next one
 * starts; another query's are not touched.
 */
class RunTmpFilesITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path base;

    @Test
    void theNextRunRemovesWhatAKilledRunOfTheSameQueryLeftInTmp() throws Exception {
        RunOptions options = BronzeITCase.options(base, 2);
        EventFiles.writeBatch(options.events(), 1, EventGenerator.events(0, 500));
        // Step 1: what a killed driver of bronze leaves, and a running query's own folder.
        Path killed = Files.createDirectories(base.resolve("_tmp/bronze/killed-run/rocksdb"));
        Files.writeString(killed.resolve("000001.sst"), "x".repeat(1000));
        Path otherQuery = Files.createDirectories(base.resolve("_tmp/silver/running-run"));
        Files.writeString(otherQuery.resolve("in-use"), "x");

        // Step 2: the next run of bronze.
        QueryRunner.Result run = QueryRunner.run(new BronzeQuery(options.events()), options);

        assertThat(run.numInputRows()).isEqualTo(500);
        assertThat(base.resolve("_tmp/bronze")).doesNotExist();
        assertThat(otherQuery.resolve("in-use")).exists();
    }
}
