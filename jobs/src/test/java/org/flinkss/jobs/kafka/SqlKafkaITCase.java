package org.flinkss.jobs.kafka;

import org.apache.flink.test.junit5.MiniClusterExtension;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.LocalEventFiles;
import org.flinkss.course.kafka.EventsToKafka;
import org.flinkss.course.testing.KafkaTestBroker;
import org.flinkss.jobs.CliOutput;
import org.flinkss.jobs.queries.WindowITCase;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.progress.ProgressTracker;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 31: {@code 'connector' = 'kafka'} in {@code sql --file} reads a topic in micro-batches as
 * {@code run kafka-bronze} does: a windowed SQL query over a topic gives, run after run, the table
 * {@code run win5} gives over the same events landed as files, every event read once; options of
 * Flink's Kafka connector that the micro-batch source does not take are refused in one line.
 */
public class SqlKafkaITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @RegisterExtension static final KafkaTestBroker.PerClass KAFKA = new KafkaTestBroker.PerClass();

    @TempDir Path tmp;

    /** The documented example: win5 over the topic {@code events} at 127.0.0.1:9092. */
    static final Path KAFKA_WIN5_SQL = project().resolve("examples/sql/kafka-win5.sql");

    /** Every record read, and where it was: the example's metadata columns. */
    private static final String READ_RECORDS =
            "CREATE TEMPORARY TABLE read_records (event_id BIGINT, `partition` INT,"
                    + " kafka_offset BIGINT)\n"
                    + "  WITH ('connector' = 'delta', 'table' = 'read_records');\n"
                    + "INSERT INTO read_records SELECT event_id, `partition`, kafka_offset FROM"
                    + " events;\n";

    /** The project's folder (the tests run in the jobs module's). */
    private static Path project() {
        Path here = Paths.get("").toAbsolutePath();
        return Files.exists(here.resolve("examples")) ? here : here.getParent();
    }

    /**
     * The example {@code examples/sql/kafka-win5.sql} on this broker and topic, {@code
     * extraOptions} before its {@code 'format'}, and a second INSERT of every record with where it
     * was read from (table {@code read_records}).
     */
    public static String win5(String bootstrapServers, String topic, String extraOptions)
            throws IOException {
        String sql = Files.readString(KAFKA_WIN5_SQL, StandardCharsets.UTF_8);
        for (String part :
                List.of("'127.0.0.1:9092'", "'topic' = 'events'", "  'format' = 'json'\n")) {
            assertThat(sql).as("the example's " + part).contains(part);
        }
        return sql.replace("'127.0.0.1:9092'", "'" + bootstrapServers + "'")
                        .replace("'topic' = 'events'", "'topic' = '" + topic + "'")
                        .replace("  'format' = 'json'\n", extraOptions + "  'format' = 'json'\n")
                + READ_RECORDS;
    }

    static CliOutput ok(String... args) {
        CliOutput out = CliOutput.of(args);
        assertThat(out.code()).as(String.join(" ", args) + "\n" + out.out() + out.err()).isZero();
        return out;
    }

    /** A new base: the queries' checkpoints and tables. */
    private Path base(String name) throws IOException {
        return Files.createDirectories(tmp.resolve(name));
    }

    private static Warehouse warehouse(Path base) {
        return new Warehouse(Storage.location(base.resolve("warehouse").toFile()));
    }

    private Path sqlFile(String name, String sql) throws IOException {
        Path file = tmp.resolve(name + ".sql");
        Files.writeString(file, sql, StandardCharsets.UTF_8);
        return file;
    }

    /**
     * One round: the events into the topic and, as a landed file, through {@code run bronze} and
     * {@code run win5}; then the SQL file's run. Both sides have the same run boundaries: the
     * watermark, and so what is closed and what is late, depends on them.
     */
    private static CliOutput round(
            Path course, Path sql, Path file, int batch, List<Event> events) {
        EventsToKafka.write(
                KAFKA.broker().bootstrapServers(),
                "win5-events",
                Optional.empty(),
                Map.of(),
                events);
        LocalEventFiles.writeBatch(course.resolve("events"), batch, events);
        ok("run", "bronze", "--base", course.toString(), "--quiet");
        ok("run", "win5", "--base", course.toString(), "--quiet");
        return ok("sql", "--file", file.toString(), "--base", sql.toString());
    }

    @Test
    void theKafkaWin5ExampleGivesTheTableOfRunWin5RoundAfterRoundEachEventOnce() throws Exception {
        Path course = tmp.resolve("course");
        Path sql = base("sql");
        Path file =
                sqlFile("kafka-win5", win5(KAFKA.broker().bootstrapServers(), "win5-events", ""));
        KAFKA.broker().createTopic("win5-events", 3);

        // Step 1: 1,000 events, read from the topic by the SQL file and from files by bronze and
        // win5: the same windows closed.
        CliOutput first = round(course, sql, file, 1, EventGenerator.events(0, 1000));
        assertThat(first.out()).contains("1,000 rows");
        assertThat(warehouse(sql).sortedValues("events_5min"))
                .isNotEmpty()
                .containsExactlyElementsOf(warehouse(course).sortedValues("events_5min"));

        // Step 2: produced between the runs, the course's late event and 500 more: the next run
        // reads only them; the late one's window closed in round 1 (the watermark is carried
        // over), so it is dropped, as run win5 drops it, and no second row of that window comes.
        List<Event> second = new ArrayList<>(List.of(WindowITCase.LATE));
        second.addAll(EventGenerator.events(1000, 500));
        assertThat(round(course, sql, file, 2, second).out()).contains("501 rows");
        assertThat(warehouse(sql).sortedValues("events_5min"))
                .containsExactlyElementsOf(warehouse(course).sortedValues("events_5min"));

        // Step 3: each event read once, at its own offset.
        List<List<Object>> records = warehouse(sql).sortedValues("read_records");
        List<Long> everyEvent = LongStream.range(0, 1500).boxed().collect(Collectors.toList());
        everyEvent.add(WindowITCase.LATE.eventId);
        assertThat(records.stream().map(r -> (Long) r.get(0)).collect(Collectors.toList()))
                .containsExactlyElementsOf(everyEvent);
        assertThat(records.stream().map(r -> r.get(1) + "@" + r.get(2)).distinct().count())
                .isEqualTo(1501);

        // Step 4: a rerun with nothing new reads nothing and changes no table.
        long version = warehouse(sql).snapshot("events_5min").version();
        CliOutput rerun = ok("sql", "--file", file.toString(), "--base", sql.toString());
        assertThat(rerun.out()).contains("nothing new (0 rows read");
        assertThat(warehouse(sql).snapshot("events_5min").version()).isEqualTo(version);
    }

    @Test
    void rawValuesAWatermarkOnTheRecordTimestampAndMaxOffsetsPerTrigger() throws Exception {
        Path base = base("raw");
        KAFKA.broker().createTopic("raw-values", 2);
        for (int i = 0; i < 30; i++) {
            KAFKA.broker()
                    .produce("raw-values", "k" + i, ("v" + i).getBytes(StandardCharsets.UTF_8));
        }
        Path file =
                sqlFile(
                        "raw",
                        "CREATE TEMPORARY TABLE lines (line STRING,"
                                + " ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',"
                                + " `topic` STRING METADATA VIRTUAL,"
                                // Spark's withWatermark on the record's timestamp.
                                + " WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE)\n"
                                + "  WITH ('connector' = 'kafka', 'topic-pattern' = 'raw-.*',"
                                + " 'properties.bootstrap.servers' = '"
                                + KAFKA.broker().bootstrapServers()
                                + "', 'scan.startup.mode' = 'earliest-offset',"
                                + " 'value.format' = 'raw', 'max-offsets-per-trigger' = '10');\n"
                                + "CREATE TEMPORARY TABLE out_lines (line STRING, `topic` STRING,"
                                + " has_ts BOOLEAN)\n"
                                + "  WITH ('connector' = 'delta', 'table' = 'raw_lines');\n"
                                + "INSERT INTO out_lines SELECT line, `topic`, ts IS NOT NULL"
                                + " FROM lines;\n");

        CliOutput run = ok("sql", "--file", file.toString(), "--base", base.toString());

        // 30 offsets, at most 10 a batch: 3 batches at least.
        assertThat(run.out()).containsPattern("raw: [3-9] batches");
        List<List<Object>> rows = warehouse(base).sortedValues("raw_lines");
        assertThat(rows).hasSize(30);
        assertThat(rows)
                .allSatisfy(r -> assertThat(r.subList(1, 3)).containsExactly("raw-values", true));
        // The watermark moved: after the first batch, its newest record timestamp minus a
        // minute is in force (Spark's rule: the first batch runs with none).
        List<ObjectNode> progress =
                ProgressTracker.history(
                        CheckpointLayout.of(Storage.location(base.toFile()), "raw"));
        String watermark =
                progress.get(progress.size() - 1).path("eventTime").path("watermark").asText();
        assertThat(Instant.parse(watermark)).isAfter(Instant.now().minus(Duration.ofHours(1)));
        assertThat(rows.stream().map(r -> (String) r.get(0)).collect(Collectors.toSet()))
                .isEqualTo(
                        LongStream.range(0, 30).mapToObj(i -> "v" + i).collect(Collectors.toSet()));
    }

    @Test
    void valuesThatAreNotEventsGiveSparksFromJsonRowAndGoToTheQuarantine() throws Exception {
        Path base = base("bad");
        KAFKA.broker().createTopic("bad-values", 1);
        KAFKA.broker().produceEvents("bad-values", 0, 10);
        KAFKA.broker().produce("bad-values", "x", "not json".getBytes(StandardCharsets.UTF_8));
        Path file =
                sqlFile(
                        "bad",
                        "CREATE TEMPORARY TABLE events (event_id BIGINT, event_type STRING)\n"
                                + "  WITH ('connector' = 'kafka', 'topic' = 'bad-values',"
                                + " 'properties.bootstrap.servers' = '"
                                + KAFKA.broker().bootstrapServers()
                                + "', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json',"
                                + " 'quarantine-table' = 'bad_values_quarantine');\n"
                                + "CREATE TEMPORARY TABLE ids (event_id BIGINT, event_type"
                                + " STRING)\n"
                                + "  WITH ('connector' = 'delta', 'table' = 'ids');\n"
                                + "INSERT INTO ids SELECT * FROM events;\n");

        ok("sql", "--file", file.toString(), "--base", base.toString(), "--quiet");

        List<List<Object>> ids = warehouse(base).sortedValues("ids");
        assertThat(ids).hasSize(11);
        // from_json's row of nulls for the value that is not JSON, as kafka-events gives it.
        assertThat(ids).contains(java.util.Arrays.asList(null, null));
        Event first = EventGenerator.event(0);
        assertThat(ids).contains(List.of(first.eventId, first.eventType));
        List<List<Object>> bad = warehouse(base).sortedValues("bad_values_quarantine");
        assertThat(bad).hasSize(1);
        assertThat(bad.get(0).subList(0, 4)).containsExactly("bad-values", 0, 10L, "not json");
        assertThat((String) bad.get(0).get(4)).startsWith("not JSON");
    }

    static Stream<Arguments> refusals() {
        return Stream.of(
                Arguments.of(
                        "bounded",
                        "'scan.bounded.mode' = 'latest-offset',\n",
                        "table 'events': option 'scan.bounded.mode' of Flink's Kafka connector is"
                                + " not supported by sql --file's micro-batch Kafka source: an"
                                + " available-now run is bounded at the offsets found at its"
                                + " start"),
                Arguments.of(
                        "key-format",
                        "'key.format' = 'raw',\n",
                        "table 'events': option 'key.format' of Flink's Kafka connector is not"
                                + " supported"),
                Arguments.of(
                        "json-option",
                        "'json.ignore-parse-errors' = 'true',\n",
                        "table 'events': option 'json.ignore-parse-errors' of Flink's Kafka"
                                + " connector is not supported"),
                Arguments.of(
                        "group-offsets",
                        "'scan.startup.mode' = 'group-offsets',\n",
                        "table 'events': 'scan.startup.mode' = 'group-offsets' is not supported"),
                Arguments.of(
                        "misspelled",
                        "'max-offset-per-trigger' = '10',\n",
                        "table 'events': Unsupported options found for 'kafka'."));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void anOptionTheMicroBatchSourceDoesNotTakeIsRefusedInOneLineExitTwo(
            String name, String option, String what) throws IOException {
        Path base = base("refused");
        // A table takes an option once: a tested startup mode stands for the example's.
        String sql =
                win5(KAFKA.broker().bootstrapServers(), "never-read", option)
                        .replace(
                                "  'scan.startup.mode' = 'earliest-offset',\n",
                                option.contains("scan.startup.mode")
                                        ? ""
                                        : "  'scan.startup.mode' = 'earliest-offset',\n");
        Path file = sqlFile(name, sql);

        CliOutput out = CliOutput.of("sql", "--file", file.toString(), "--base", base.toString());

        assertThat(out.code()).as(out.err()).isEqualTo(2);
        List<String> lines = out.errLines();
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0))
                .startsWith("error: " + file + ":")
                .contains("statement ")
                .contains(what);
        assertThat(base.resolve("_cp").resolve(name)).doesNotExist();
    }

    @Test
    void aKafkaTableAsTheTargetOfAnInsertGetsEachRowOnceForAReadCommittedReader() throws Exception {
        Path base = base("sink");
        KAFKA.broker().createTopic("out", 2);
        Path file =
                sqlFile(
                        "to-kafka",
                        "CREATE TEMPORARY TABLE bronze (event_id BIGINT)\n"
                                + "  WITH ('connector' = 'delta', 'table' = 'events_bronze');\n"
                                + "CREATE TEMPORARY TABLE out_topic (event_id BIGINT)\n"
                                + "  WITH ('connector' = 'kafka', 'topic' = 'out',"
                                + " 'properties.bootstrap.servers' = '"
                                + KAFKA.broker().bootstrapServers()
                                + "', 'format' = 'json');\n"
                                + "INSERT INTO out_topic SELECT event_id FROM bronze;\n");
        LocalEventFiles.writeBatch(base.resolve("events"), 1, EventGenerator.events(0, 10));
        ok("run", "bronze", "--base", base.toString(), "--quiet");

        // Step 1: Flink's Kafka table sink, exactly once: the ten rows, committed, and the run's
        // summary counts them.
        CliOutput first = ok("sql", "--file", file.toString(), "--base", base.toString());
        assertThat(first.out()).contains("1 batch, 10 rows read");
        assertThat(KAFKA.broker().readCommittedOnceVisible("out", 10))
                .extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
                .containsExactlyInAnyOrderElementsOf(
                        LongStream.range(0, 10)
                                .mapToObj(i -> "{\"event_id\":" + i + "}")
                                .collect(Collectors.toList()));

        // Step 2: a rerun with nothing new writes nothing.
        CliOutput rerun = ok("sql", "--file", file.toString(), "--base", base.toString());
        assertThat(rerun.out()).contains("nothing new (0 rows read");
        assertThat(KAFKA.broker().readCommittedOnceVisible("out", 10)).hasSize(10);
    }
}
