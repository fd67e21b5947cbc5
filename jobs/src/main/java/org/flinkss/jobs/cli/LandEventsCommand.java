package org.flinkss.jobs.cli;

import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.LandEvents;
import org.flinkss.course.kafka.EventsToKafka;
import org.flinkss.course.queries.Api;
import org.flinkss.jobs.cli.options.ApiOption;
import org.flinkss.jobs.cli.options.BaseFolder;
import org.flinkss.jobs.cli.options.Converters;
import org.flinkss.jobs.cli.options.DataOptions;
import org.flinkss.jobs.cli.options.KafkaClientOptions;
import org.flinkss.runtime.storage.Storage;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/** The course's {@code land_events(batch, start, n)}: into the landing folder, or a topic. */
@Command(
        name = "land-events",
        mixinStandardHelpOptions = true,
        description =
                "The course's land_events(batch, start, n): n events into"
                        + " <base>/events/batch_<batch>/ as JSON lines, or with --to-kafka into a"
                        + " topic.")
public final class LandEventsCommand implements Callable<Integer> {

    @Mixin DataOptions data = DataOptions.landing();

    @Option(names = "--batch", required = true, description = "batch number: the folder batch_<N>")
    int batch;

    @Option(names = "--start", required = true, description = "first event id")
    long start;

    @Option(
            names = "--n",
            defaultValue = "500",
            converter = Converters.PositiveInt.class,
            description = "number of events (default: ${DEFAULT-VALUE})")
    int n;

    @Mixin ApiOption api;

    @Option(
            names = "--to-kafka",
            description =
                    "write the events to a Kafka topic instead (key event_id, value the JSON"
                            + " line)")
    boolean toKafka;

    @Mixin KafkaClientOptions kafka;

    @Option(
            names = "--partitions",
            paramLabel = "N",
            converter = Converters.PositiveInt.class,
            description =
                    "--to-kafka: create the topic with N partitions if it does not exist (default:"
                            + " leave it to the broker)")
    Integer partitions;

    @Override
    public Integer call() {
        data.refuseJdbcUrl("land-events");
        String ids = "ids " + start + ".." + (start + n - 1);
        if (toKafka) {
            Map<String, String> properties = kafka.clientProperties();
            String servers = kafka.bootstrapServers(properties);
            if (servers == null || kafka.topic() == null) {
                throw new IllegalArgumentException(
                        "land-events --to-kafka needs --bootstrap-servers H:P and --topic T");
            }
            Map<Integer, Integer> written =
                    EventsToKafka.write(
                            servers,
                            kafka.topic(),
                            Optional.ofNullable(partitions),
                            properties,
                            EventGenerator.events(start, n));
            System.out.println(
                    "landed "
                            + n
                            + " events ("
                            + ids
                            + ", batch "
                            + batch
                            + ") in topic "
                            + kafka.topic()
                            + " at "
                            + servers
                            + ", records per partition "
                            + written);
            return 0;
        }
        if (kafka.given() || kafka.topic() != null || partitions != null) {
            throw new IllegalArgumentException(
                    "--bootstrap-servers, --topic, --partitions and --kafka-properties go with"
                            + " --to-kafka");
        }
        BaseFolder.createForLanding(data);
        Path landed = land(data.events(), batch, start, n, api.api());
        String folder = Storage.shown(landed);
        System.out.println("landed " + n + " events (" + ids + ") in " + folder);
        return 0;
    }

    /**
     * The generator as a DataStream job or as a Flink SQL query; both land the same files, in a
     * local folder or on an object store ({@link EventFiles#writeBatch}).
     */
    private static Path land(Path events, int batch, long start, int n, Api api) {
        switch (api) {
            case TABLE:
                return LandEvents.withTable(
                        TableEnvironment.create(EnvironmentSettings.inBatchMode()),
                        events,
                        batch,
                        start,
                        n);
            default:
                return LandEvents.withDataStream(
                        StreamExecutionEnvironment.getExecutionEnvironment(),
                        events,
                        batch,
                        start,
                        n);
        }
    }
}
