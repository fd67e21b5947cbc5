package org.flinkss.sparkdiff;

import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.EventJson;
import org.flinkss.jobs.Main;
import org.flinkss.runtime.TestPauses;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.table.delta.DeltaTable;
import org.flinkss.runtime.testing.ChildJvm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every kind of table the project writes, read back by a second, independent Delta reader (issue
 * 12): the project's real commands ({@code Main.execute}, on this JVM's MiniCluster, as {@link
 * SparkDiffITCase} drives them) run two rounds on one base, then Delta Spark 4.0.0 (the oracle's
 * {@code read-delta}) reads every table of the warehouse and must see the rows of the project's
 * {@code table export --csv}, row for row. {@code events_latest}'s change data feed, three batches
 * of {@code run latest}, must equal the feed of Spark's own {@code MERGE INTO} on the same batches,
 * both read by Spark's {@code readChangeFeed}; read as a stream by {@code sql --file} ({@code
 * 'read-change-feed'}), it equals Spark's {@code readStream} of it; and the feed of an update-mode
 * win5 equals Spark's own ({@link ChangeFeedStreamDiff}).
 *
 * <p>What the two rounds make: {@code events_bronze}, {@code events_bronze_quarantine} (a bad line
 * in a landed file), {@code events_bronze_skipped_files} ({@code --skip-missing-files} and a landed
 * file deleted after the run planned it), the {@code _late} tables of win5, dedup and both joins
 * and silver (round 2 lands rows older than round 1's watermark), {@code customers} and {@code
 * events_enriched}, complete-mode tables overwritten by round 2's batch (sliding in the Table API,
 * sessions and gold), silver, and the Kafka tables {@code kafka_bronze}, {@code kafka_events} and
 * {@code kafka_events_quarantine} (a record that is not JSON) from a real broker in this JVM.
 *
 * <p>The set of tables read back must be exactly the set of folders in the warehouse (and the
 * project's own list of them), so a new kind of table cannot slip by unread.
 */
class WarehouseReadBackITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(4)
                            .build());

    static final Path WORK = Path.of("target", "warehouse-read-back").toAbsolutePath();

    /** Every table the scenario below writes: the warehouse must hold these and nothing else. */
    static final List<String> TABLES =
            List.of(
                    "customers",
                    "events_5min",
                    "events_5min_late",
                    "events_bronze",
                    "events_bronze_quarantine",
                    "events_bronze_skipped_files",
                    "events_by_type",
                    "events_dedup",
                    "events_dedup_late",
                    "events_enriched",
                    "events_latest",
                    "events_sessions",
                    "events_silver",
                    "events_silver_late",
                    "events_sliding",
                    "kafka_bronze",
                    "kafka_events",
                    "kafka_events_quarantine",
                    "view_then_buy",
                    "view_then_buy_late",
                    "view_then_buy_left",
                    "view_then_buy_left_late");

    /** The tables that round 2 overwrites in complete mode. */
    static final List<String> COMPLETE =
            List.of("events_sliding", "events_sessions", "events_by_type");

    static CompletableFuture<SparkOracleProcess> spark;
    static volatile String smoke;
    static KafkaClusterTestKit kafka;

    /** The version of events_bronze that each {@code run latest} read up to, in order. */
    static final List<Long> LATEST_READ_UP_TO = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        SparkDiffITCase.deleteRecursively(WORK);
        Files.createDirectories(WORK);
        // Spark starts in its own JVM while the project runs (it is needed only at the end), and
        // pays its first Delta write and read there too (the smoke test: about 15 s of a first
        // read-delta otherwise).
        spark =
                CompletableFuture.supplyAsync(
                        () -> {
                            SparkOracleProcess p =
                                    SparkOracleProcess.start(
                                            WORK.resolve("oracle"),
                                            WORK.resolve("spark-oracle.log"));
                            try {
                                smoke = p.call("smoke " + WORK.resolve("smoke"));
                            } catch (RuntimeException e) {
                                p.close();
                                throw e;
                            }
                            return p;
                        });
        Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
        kafka =
                new KafkaClusterTestKit.Builder(
                                new TestKitNodes.Builder()
                                        .setCombined(true)
                                        .setNumBrokerNodes(1)
                                        .setNumControllerNodes(1)
                                        .build())
                        .setConfigProp("offsets.topic.replication.factor", "1")
                        .setConfigProp("transaction.state.log.replication.factor", "1")
                        .setConfigProp("transaction.state.log.min.isr", "1")
                        .setConfigProp("group.initial.rebalance.delay.ms", "0")
                        .build();
        kafka.format();
        kafka.startup();
        kafka.waitForReadyBrokers();
    }

    @AfterAll
    static void stop() throws Exception {
        if (spark != null) {
            // Now if it is up, else as soon as it is.
            spark.thenAccept(SparkOracleProcess::close);
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void everyTableOfTheWarehouseReadsTheSameInDeltaSpark() throws Exception {
        long start = System.nanoTime();
        Path base = WORK.resolve("base");
        Path events = base.resolve("events");
        String bootstrap = kafka.bootstrapServers();

        // Round 1: 500 events and a line that is not JSON; the customers; the same events and a
        // record that is not JSON into a topic; every query once.
        cli("land-events", "--batch", "1", "--start", "0", "--base", base.toString());
        Path landed = onlyJson(events.resolve("batch_1"));
        Files.writeString(
                landed,
                "this line is not JSON\n",
                StandardCharsets.UTF_8,
                StandardOpenOption.APPEND);
        cli("land-customers", "--base", base.toString());
        cli(
                "land-events",
                "--to-kafka",
                "--bootstrap-servers",
                bootstrap,
                "--topic",
                "events",
                "--partitions",
                "2",
                "--batch",
                "1",
                "--start",
                "0");
        produce(bootstrap, "events", "not an event");
        runBronze(base, List.of());
        runTheRest(base, bootstrap);
        say("round 1 in " + SparkDiffITCase.seconds(start));

        // Round 2: rows older than round 1's watermark (2025-03-01T01:13:10Z) for every _late
        // table, six files of new events read one a batch, the last of them deleted once the run
        // has committed its first batch (planned at the start, gone when read: skipped and
        // recorded); the topic gets 100 more events.
        long round2 = System.nanoTime();
        List<String> late = new ArrayList<>();
        for (long id = 0; id < 40; id++) {
            Event e = EventGenerator.event(id);
            // The same event again (a duplicate for dedup) and under a new id.
            late.add(EventJson.toJson(e));
            e.eventId = 100_000 + id;
            late.add(EventJson.toJson(e));
        }
        Path lateFile = events.resolve("late").resolve("part-00000-late.json");
        Files.createDirectories(lateFile.getParent());
        Files.write(lateFile, late, StandardCharsets.UTF_8);
        List<Path> files = new ArrayList<>(List.of(lateFile));
        for (int batch = 2; batch <= 6; batch++) {
            cli(
                    "land-events",
                    "--batch",
                    String.valueOf(batch),
                    "--start",
                    String.valueOf(500 + (batch - 2) * 100),
                    "--n",
                    "100",
                    "--base",
                    base.toString());
            files.add(onlyJson(events.resolve("batch_" + batch)));
        }
        // Oldest first: the late rows first, batch_6 last.
        long now = System.currentTimeMillis();
        for (int i = 0; i < files.size(); i++) {
            Files.setLastModifiedTime(files.get(i), FileTime.fromMillis(now - 60_000 + i * 1000L));
        }
        Path deleted = files.get(files.size() - 1);
        cli(
                "land-events",
                "--to-kafka",
                "--bootstrap-servers",
                bootstrap,
                "--topic",
                "events",
                "--batch",
                "2",
                "--start",
                "500",
                "--n",
                "100");
        runBronzeDeleting(base, deleted);
        runTheRest(base, bootstrap);
        say("round 2 in " + SparkDiffITCase.seconds(round2));

        // Round 3, latest's third batch: 50 events landed again (ids 0-49, updates of rows that
        // round 1 inserted and round 2's late rows updated).
        cli("land-events", "--batch", "7", "--start", "0", "--n", "50", "--base", base.toString());
        runBronze(base, List.of());
        runLatest(base);

        // The scenario did make every kind of table, with rows where it matters.
        assertThat(count(base, "events_bronze_quarantine")).as("quarantined lines").isEqualTo(1);
        List<String> skipped = ProjectRunner.export(base, "events_bronze_skipped_files");
        assertThat(skipped).as("events_bronze_skipped_files").hasSize(2);
        assertThat(skipped.get(1)).contains(deleted.getFileName().toString());
        for (String t : TABLES) {
            if (t.endsWith("_late") || t.startsWith("kafka_")) {
                assertThat(count(base, t)).as("rows of %s", t).isPositive();
            }
        }
        assertThat(count(base, "kafka_events_quarantine"))
                .as("kafka_events_quarantine")
                .isEqualTo(1);
        Path warehouse = base.resolve("warehouse");
        for (String t : COMPLETE) {
            assertThat(overwrites(warehouse.resolve(t)))
                    .as(
                            "commits of %s that remove the previous result (a complete-mode"
                                    + " overwrite)",
                            t)
                    .isPositive();
        }

        // Every folder of the warehouse is a table, and each one is read back.
        TreeSet<String> folders;
        try (Stream<Path> children = Files.list(warehouse)) {
            folders =
                    children.map(p -> p.getFileName().toString())
                            .collect(Collectors.toCollection(TreeSet::new));
        }
        assertThat(folders)
                .as(
                        "everything in the warehouse %s (a new kind of table must be added here)",
                        warehouse)
                .containsExactlyElementsOf(new TreeSet<>(TABLES));
        assertThat(new Warehouse(Storage.location(warehouse.toFile())).tables())
                .as("the project's own list of the warehouse's tables")
                .containsExactlyElementsOf(folders);
        long reading = System.nanoTime();
        SparkOracleProcess reader = spark.get(5, TimeUnit.MINUTES);
        say(
                "Spark up ("
                        + reader.version
                        + ", "
                        + smoke
                        + ") "
                        + SparkDiffITCase.seconds(start)
                        + " after the start");
        assertThat(smoke).as("the reader's Delta").contains("delta=4.0.0", "spark=4.0.");
        List<String> readBack = new ArrayList<>();
        int rows = 0;
        for (String t : folders) {
            long one = System.nanoTime();
            List<String> exported = ProjectRunner.export(base, t);
            int n =
                    DeltaReadBack.check(
                            reader,
                            warehouse.resolve(t),
                            WORK.resolve("read-back").resolve(t + ".csv"),
                            t,
                            exported);
            say(
                    t
                            + ": "
                            + n
                            + " rows, the same in Delta Spark ("
                            + SparkDiffITCase.seconds(one)
                            + ")");
            rows += n;
            readBack.add(t);
        }
        assertThat(readBack).containsExactlyElementsOf(folders);
        historyShowsTheCompleteness(reader, warehouse);
        changeFeedsEqualSparksOwn(reader, warehouse);
        say(
                readBack.size()
                        + " tables, "
                        + rows
                        + " rows, read back by Delta Spark the same as the project's export in "
                        + SparkDiffITCase.seconds(reading)
                        + "; whole test "
                        + SparkDiffITCase.seconds(start));
    }

    /**
     * Spark's {@code DESCRIBE HISTORY} reads the history of events_5min whole, every version the
     * project's {@code table history} lists, and shows in {@code operationParameters} the
     * completeness each batch's commit records ({@code flinkss.watermark}, {@code
     * flinkss.finalBefore}), the newest as the project reads it (issue 35 point 3).
     */
    private static void historyShowsTheCompleteness(SparkOracleProcess reader, Path warehouse)
            throws IOException {
        Path file = WORK.resolve("read-back").resolve("events_5min.history");
        reader.call("read-history " + warehouse.resolve("events_5min") + " " + file);
        List<String> versions = Files.readAllLines(file, StandardCharsets.UTF_8);
        DeltaTable ours =
                new Warehouse(Storage.location(warehouse.toFile())).existing("events_5min");
        assertThat(versions).hasSize((int) ours.version() + 1);
        String watermark = ours.completeness().parameters().get("flinkss.watermark");
        assertThat(watermark).as("the newest batch commit's watermark").isNotNull();
        assertThat(versions.get(0))
                .as("the newest version as DESCRIBE HISTORY shows it")
                .contains(
                        "STREAMING UPDATE",
                        "flinkss.watermark=" + watermark + ";",
                        "flinkss.finalBefore=" + watermark + ";",
                        "flinkss.finalColumn=window_end;");
        say(
                "events_5min: DESCRIBE HISTORY reads "
                        + versions.size()
                        + " versions, newest "
                        + versions.get(0));
    }

    /**
     * Spark runs the course's 11.13 upsert on the same three batches as the project's {@code run
     * latest} (the rows each run read from events_bronze) into a table with the change data feed,
     * and reads both tables' feeds with {@code readChangeFeed}: the same rows with the same {@code
     * _change_type}, batch by batch (issue 34, point 2).
     */
    private static void changeFeedsEqualSparksOwn(SparkOracleProcess reader, Path warehouse)
            throws IOException {
        long start = System.nanoTime();
        Path sparkLatest = WORK.resolve("spark-latest");
        long after = -1;
        for (long upTo : LATEST_READ_UP_TO) {
            reader.call(
                    "upsert "
                            + warehouse.resolve("events_bronze")
                            + " "
                            + after
                            + " "
                            + upTo
                            + " "
                            + sparkLatest);
            after = upTo;
        }
        Path ours = WORK.resolve("read-feed").resolve("events_latest.csv");
        Path sparks = WORK.resolve("read-feed").resolve("spark_latest.csv");
        reader.call("read-feed " + warehouse.resolve("events_latest") + " " + ours);
        reader.call("read-feed " + sparkLatest + " " + sparks);
        List<String> ourFeed = Files.readAllLines(ours, StandardCharsets.UTF_8);
        List<String> sparkFeed = Files.readAllLines(sparks, StandardCharsets.UTF_8);
        assertThat(ourFeed.get(0)).as("columns of the feeds").isEqualTo(sparkFeed.get(0));
        assertThat(ourFeed.get(0)).endsWith(",_change_type,_change_batch");
        assertThat(ourFeed.subList(1, ourFeed.size()))
                .as(
                        "events_latest's change data feed read by Spark (readChangeFeed) vs the"
                                + " feed of Spark's own MERGE INTO on the same batches")
                .containsExactlyInAnyOrderElementsOf(sparkFeed.subList(1, sparkFeed.size()));
        assertThat(ourFeed.stream().filter(l -> l.contains(",update_preimage,")).count())
                .as("updated rows in the feed (round 2's 40 late ids, round 3's 50)")
                .isEqualTo(90);
        assertThat(ourFeed.stream().filter(l -> l.endsWith(",3")).count())
                .as("changes of the third batch")
                .isEqualTo(100);
        say(
                (ourFeed.size() - 1)
                        + " rows of events_latest's change data feed, the same as Spark's own,"
                        + " read by Spark in "
                        + SparkDiffITCase.seconds(start));
    }

    /** {@code run latest}, recording the version of events_bronze it read up to. */
    private static void runLatest(Path base) {
        LATEST_READ_UP_TO.add(
                DeltaTable.forPath(
                                base.resolve("warehouse")
                                        .resolve("events_bronze")
                                        .toUri()
                                        .toString())
                        .version());
        run(base, "latest");
    }

    /**
     * Issue 34: Delta Spark reads {@code events_latest} after three batches of {@code run latest},
     * one of them replayed (the run halted right after the batch's MERGE commit, before the
     * checkpoint that follows, as a kill would end it, then ran again), and the rows equal Spark's
     * own run of the course's {@code upsert} (topic 11.13: {@code foreachBatch} + {@code MERGE
     * INTO}) over the same bronze, batch for batch.
     */
    @Test
    void eventsLatestWithAReplayedBatchEqualsSparksOwnUpsert() throws Exception {
        Path base = WORK.resolve("latest");
        Path events = base.resolve("events");
        String[] latest = {"run", "latest", "--base", base.toString(), "--parallelism", "1"};
        // Step 1: three rounds of 300 ids each, the next starting 100 ids later (200 updated, 100
        // new), every row of round k of type "v<k>"; bronze at parallelism 1 writes one file a
        // round, so each round is one batch for both, as Spark's MERGE needs (one row per id).
        for (int round = 1; round <= 3; round++) {
            List<Event> rows = new ArrayList<>();
            for (Event e : EventGenerator.events((round - 1) * 100L, 300)) {
                rows.add(new Event(e.eventId, e.userId, "v" + round, e.eventTs, e.amount * round));
            }
            EventFiles.writeBatch(Storage.location(events.toFile()), round, rows);
            cli("run", "bronze", "--base", base.toString(), "--parallelism", "1", "--quiet");
            if (round == 2) {
                // Step 2: batch 1 halts right after its MERGE commit; the rerun replays it.
                int code;
                try (ChildJvm child =
                        ChildJvm.of(Main.class)
                                .jvmOption(
                                        "-D"
                                                + TestPauses.HALT_PROPERTY
                                                + "=delta-commit:events_latest:1")
                                .workDir(WORK.resolve("latest-child"))
                                .tmpDir(WORK.resolve("latest-child-tmp"))
                                .output(WORK.resolve("latest-halted.log"))
                                .start(latest)) {
                    code = child.waitFor(Duration.ofMinutes(3));
                }
                assertThat(code)
                        .as("the halted run's exit code")
                        .isEqualTo(TestPauses.HALT_EXIT_CODE);
            }
            cli(latest);
        }
        Path table = base.resolve("warehouse").resolve("events_latest");
        List<String> exported = ProjectRunner.export(base, "events_latest");
        assertThat(exported).as("ids 0..499, each once").hasSize(1 + 500);

        // Step 3: Delta Spark reads the project's table; Spark's own upsert over the project's
        // bronze (one batch a file) makes the same rows.
        SparkOracleProcess reader = spark.get(5, TimeUnit.MINUTES);
        DeltaReadBack.check(
                reader,
                table,
                WORK.resolve("read-back-replayed/events_latest.csv"),
                "events_latest",
                exported);
        Path sparks = WORK.resolve("spark-latest-stream");
        say(
                reader.call(
                        "upsert-stream "
                                + base.resolve("warehouse").resolve("events_bronze")
                                + " "
                                + sparks
                                + " "
                                + WORK.resolve("spark-latest-stream-cp")));
        Path sparkCsv = WORK.resolve("read-back-replayed/spark_events_latest.csv");
        reader.call("read-delta " + sparks + " " + sparkCsv);
        List<String> ours =
                Files.readAllLines(WORK.resolve("read-back-replayed/events_latest.csv"));
        assertThat(ours)
                .as("events_latest: the project's MERGEs vs Spark's upsert, both read by Spark")
                .containsExactlyElementsOf(Files.readAllLines(sparkCsv));
        assertThat(ours)
                .filteredOn(l -> l.contains(",v3,"))
                .as("round 3's ids 200..499")
                .hasSize(300);

        // Step 4: the table's change data feed read as a stream by sql --file equals Spark's
        // readStream with readChangeFeed over the same table.
        ChangeFeedStreamDiff.sqlFeedOfLatestEqualsSparksReadStream(reader, WORK, table);
    }

    /**
     * Issue 34: Spark's {@code readChangeFeed} of an update-mode win5 equals Spark's own feed for
     * the same batches ({@link ChangeFeedStreamDiff#win5UpdateModeFeedEqualsSparksOwn}).
     */
    @Test
    void updateModeWin5sChangeFeedEqualsSparksOwn() throws Exception {
        ChangeFeedStreamDiff.win5UpdateModeFeedEqualsSparksOwn(
                spark.get(5, TimeUnit.MINUTES), WORK);
    }

    /** Bronze, then every other query that writes a warehouse table, then the Kafka queries. */
    private static void runTheRest(Path base, String bootstrap) {
        run(base, "win5");
        run(base, "sliding", "--output-mode", "complete", "--api", "table");
        run(base, "sessions", "--output-mode", "complete");
        run(base, "dedup", "--api", "table");
        run(base, "view-then-buy");
        run(base, "view-then-buy", "--outer", "--api", "table");
        run(base, "enriched");
        run(base, "silver");
        run(base, "gold", "--output-mode", "complete");
        runLatest(base);
        run(
                base,
                "kafka-bronze",
                "--bootstrap-servers",
                bootstrap,
                "--subscribe",
                "events",
                "--starting-offsets",
                "earliest");
        run(base, "kafka-events");
    }

    private static void runBronze(Path base, List<String> options) {
        List<String> args = new ArrayList<>(List.of("bronze"));
        args.addAll(options);
        run(base, args.toArray(String[]::new));
    }

    /**
     * {@code run bronze --skip-missing-files --max-files-per-trigger 1}, deleting {@code file} (the
     * last one planned) once the run has committed its first batch to {@code events_bronze}: the
     * run planned it at its start and finds it gone when its batch comes.
     */
    private static void runBronzeDeleting(Path base, Path file) throws Exception {
        Path log = base.resolve("warehouse").resolve("events_bronze").resolve("_delta_log");
        long versions = commits(log);
        CompletableFuture<Void> bronze =
                CompletableFuture.runAsync(
                        () ->
                                runBronze(
                                        base,
                                        List.of(
                                                "--skip-missing-files",
                                                "--max-files-per-trigger",
                                                "1")));
        while (commits(log) == versions) {
            if (bronze.isDone()) {
                bronze.join();
                throw new AssertionError(
                        "run bronze ended before it committed a batch to events_bronze");
            }
            Thread.sleep(5);
        }
        Files.delete(file);
        assertThat(bronze.isDone()).as("bronze still running when %s was deleted", file).isFalse();
        bronze.get(5, TimeUnit.MINUTES);
    }

    private static long commits(Path log) throws IOException {
        try (Stream<Path> files = Files.list(log)) {
            return files.filter(f -> f.getFileName().toString().matches("\\d{20}\\.json")).count();
        }
    }

    /** Commits of a table's log that remove a file: an overwrite. */
    private static long overwrites(Path table) throws IOException {
        try (Stream<Path> files = Files.list(table.resolve("_delta_log"))) {
            return files.filter(f -> f.getFileName().toString().matches("\\d{20}\\.json"))
                    .filter(
                            f -> {
                                try {
                                    return Files.readString(f).contains("{\"remove\":");
                                } catch (IOException e) {
                                    throw new java.io.UncheckedIOException(e);
                                }
                            })
                    .count();
        }
    }

    private static int count(Path base, String table) {
        return ProjectRunner.export(base, table).size() - 1;
    }

    private static void run(Path base, String... query) {
        List<String> args = new ArrayList<>(List.of("run"));
        args.addAll(List.of(query));
        args.addAll(List.of("--base", base.toString(), "--parallelism", "2", "--quiet"));
        cli(args.toArray(String[]::new));
    }

    /** One command of the project's command line; fails with what it printed. */
    private static void cli(String... args) {
        long start = System.nanoTime();
        ProjectRunner.executeOrFail(args);
        say(String.join(" ", args) + ": " + SparkDiffITCase.seconds(start));
    }

    private static Path onlyJson(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> json =
                    files.filter(f -> f.getFileName().toString().endsWith(".json"))
                            .collect(Collectors.toList());
            assertThat(json).as("JSON files in %s", dir).hasSize(1);
            return json.get(0);
        }
    }

    private static void produce(String bootstrap, String topic, String value) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            producer.send(new ProducerRecord<>(topic, null, value.getBytes(StandardCharsets.UTF_8)))
                    .get(1, TimeUnit.MINUTES);
        }
    }

    private static void say(String line) {
        ProjectRunner.CONSOLE.println("[read-back] " + line);
    }
}
