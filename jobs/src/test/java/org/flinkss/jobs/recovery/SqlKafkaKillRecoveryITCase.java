package org.flinkss.jobs.recovery;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.testing.KafkaTestBroker;
import org.flinkss.jobs.CliOutput;
import org.flinkss.jobs.kafka.SqlKafkaITCase;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 31: a {@code sql --file} query reading a topic ({@code 'connector' = 'kafka'}), killed with
 * SIGKILL at seeded moments, ends with the tables an uninterrupted run gives: the windows of win5,
 * and each record read once. The topic is read 400 offsets a batch, so a kill lands between batches
 * as well as inside one.
 */
class SqlKafkaKillRecoveryITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @RegisterExtension static final KafkaTestBroker.PerClass KAFKA = new KafkaTestBroker.PerClass();

    private static final long SEED = Long.getLong("flinkss.chaosSeed", 3131L);
    private static final int KILLS = 2;
    private static final int EVENTS = 3000;

    @TempDir Path dir;

    private static String[] sqlRun(Path file, Path base) {
        return new String[] {
            "sql",
            "--file",
            file.toString(),
            "--base",
            base.toString(),
            "--parallelism",
            "2",
            "--checkpoint-interval",
            "300ms",
            "--quiet"
        };
    }

    private static Warehouse warehouse(Path base) {
        return new Warehouse(Storage.location(base.resolve("warehouse").toFile()));
    }

    @Test
    void aSqlFileOverATopicKilledAtRandomMomentsEndsWithTheTablesOfAnUninterruptedRun()
            throws Exception {
        KAFKA.broker().createTopic("killed-events", 3);
        KAFKA.broker().produceEvents("killed-events", 0, EVENTS);
        Path file = dir.resolve("kafka-win5.sql");
        Files.writeString(
                file,
                SqlKafkaITCase.win5(
                        KAFKA.broker().bootstrapServers(),
                        "killed-events",
                        "  'max-offsets-per-trigger' = '400',\n"),
                StandardCharsets.UTF_8);

        // Step 1: one uninterrupted run: several batches, every event once.
        Path reference = Files.createDirectories(dir.resolve("reference"));
        CliOutput run = CliOutput.of(sqlRun(file, reference));
        assertThat(run.code()).as(run.err()).isZero();
        List<List<Object>> windows = warehouse(reference).sortedValues("events_5min");
        assertThat(windows).hasSizeGreaterThan(10);
        List<Long> everyEvent = LongStream.range(0, EVENTS).boxed().collect(Collectors.toList());
        assertThat(eventIds(reference)).containsExactlyElementsOf(everyEvent);

        // Step 2: the same file on a fresh base, in child JVMs killed at seeded moments, then
        // run to its end.
        Path killed = Files.createDirectories(dir.resolve("killed"));
        SeededKills.Result result =
                SeededKills.run(
                        dir,
                        "kafka-win5",
                        sqlRun(file, killed),
                        KILLS,
                        SEED,
                        4000,
                        5000,
                        Duration.ofSeconds(180));
        assertThat(result.kills()).as("runs killed before they ended").isGreaterThanOrEqualTo(1);

        // Step 3: each window as the uninterrupted run wrote it, each event read once.
        assertThat(warehouse(killed).sortedValues("events_5min")).isEqualTo(windows);
        assertThat(eventIds(killed)).containsExactlyElementsOf(everyEvent);
    }

    private static List<Long> eventIds(Path base) {
        return warehouse(base).sortedValues("read_records").stream()
                .map(r -> (Long) r.get(0))
                .collect(Collectors.toList());
    }
}
