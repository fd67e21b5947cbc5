package org.flinkss.jobs.s3;

import org.apache.flink.test.junit5.MiniClusterExtension;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.queries.KafkaBronzeQuery;
import org.flinkss.course.testing.KafkaTestBroker;
import org.flinkss.jobs.CliOutput;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.JsonFiles;
import org.flinkss.runtime.checkpoint.RestorePoints;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.testing.S3TestServer;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code run kafka-bronze} with {@code --base s3://flinkss/<prefix>}: a real broker ({@link
 * KafkaTestBroker}) and S3Proxy; the query's checkpoint (offsets in its Flink state, the offset
 * log, progress) and its table on S3. Two rounds of 500 events, each read once by the run after it
 * (500 then 1000 rows), a rerun reading nothing; the S3 table equals the same runs' on a local base
 * row for row.
 */
@Tag("ports")
class KafkaS3ITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @RegisterExtension static final KafkaTestBroker.PerClass KAFKA = new KafkaTestBroker.PerClass();

    @RegisterExtension
    static final S3TestServer.PerClass S3 = new S3TestServer.PerClass("kafka-s3-it");

    @TempDir Path dir;

    private static CliOutput ok(String base, String... args) {
        List<String> all = new ArrayList<>(List.of("run", KafkaBronzeQuery.NAME));
        all.addAll(
                List.of(
                        "--base",
                        base,
                        "--bootstrap-servers",
                        KAFKA.broker().bootstrapServers(),
                        "--subscribe",
                        "events-s3",
                        "--starting-offsets",
                        "earliest",
                        "--quiet"));
        all.addAll(List.of(args));
        CliOutput o = CliOutput.of(all.toArray(String[]::new));
        assertThat(o.code()).as("%s: %s%s", all, o.out(), o.err()).isZero();
        return o;
    }

    @Test
    void kafkaBronzeOnAnS3BaseReadsEachEventOnceAndEqualsALocalBase() throws Exception {
        String remote = S3.server().freshPrefix("kafka").toString();
        String local = dir.resolve("local-base").toString();
        java.nio.file.Files.createDirectories(Path.of(local));
        Warehouse onS3 = new Warehouse(Storage.location(remote + "/warehouse"));
        Warehouse onDisk = new Warehouse(Storage.location(Path.of(local, "warehouse").toFile()));
        KAFKA.broker().createTopic("events-s3", 3);

        // Step 1: 500 events; the first run on the empty S3 prefix starts its checkpoint there.
        KAFKA.broker().produceEvents("events-s3", 0, 500);
        CliOutput first = ok(remote);
        assertThat(first.err()).contains("note: --base " + remote + " holds nothing yet");
        ok(local);
        assertThat(onS3.count(KafkaBronzeQuery.TABLE)).isEqualTo(500);

        // Step 2: 500 more; the next run reads only them, from the offsets of its S3 checkpoint.
        KAFKA.broker().produceEvents("events-s3", 500, 500);
        ok(remote);
        ok(local);
        assertThat(onS3.count(KafkaBronzeQuery.TABLE)).isEqualTo(1000);
        JsonNode last =
                JsonFiles.JSON.readTree(
                        CliOutput.of("progress", KafkaBronzeQuery.NAME, "--base", remote).out());
        assertThat(last.path("numInputRows").asLong()).isEqualTo(500);

        // Step 3: nothing new: 0 rows, the table unchanged.
        ok(remote);
        assertThat(onS3.count(KafkaBronzeQuery.TABLE)).isEqualTo(1000);

        // Step 4: the checkpoint is on S3, and the table equals the local one row for row.
        CheckpointLayout checkpoint =
                CheckpointLayout.of(Storage.location(remote), KafkaBronzeQuery.NAME);
        assertThat(new RestorePoints(checkpoint).all())
                .singleElement()
                .asString()
                .startsWith(checkpoint.savepoints() + "/savepoint-");
        assertThat(onS3.sortedValues(KafkaBronzeQuery.TABLE))
                .hasSize(1000)
                .isEqualTo(onDisk.sortedValues(KafkaBronzeQuery.TABLE));
    }
}
