package org.flinkss.course.queries;

import org.flinkss.runtime.jdbc.Database;
import org.flinkss.runtime.query.OutputMode;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.RunOptions;

import java.util.Iterator;
import java.util.List;

/** The queries of the course, by the names the command line uses. */
public final class Queries {

    static final List<String> NAMES =
            List.of(
                    BronzeQuery.NAME,
                    "win5",
                    "sliding",
                    "sessions",
                    "dedup",
                    "silver",
                    "view-then-buy",
                    "enriched",
                    "gold",
                    "pipeline",
                    "latest",
                    KafkaBronzeQuery.NAME,
                    KafkaEventsQuery.NAME,
                    BronzeToKafkaQuery.NAME);

    private Queries() {}

    public static Query create(String name, RunOptions options, String api) {
        return create(name, options, api, false, false, KafkaSettings.NONE);
    }

    /**
     * @param outer the left outer variant of view-then-buy
     */
    public static Query create(String name, RunOptions options, String api, boolean outer) {
        return create(name, options, api, outer, false, KafkaSettings.NONE);
    }

    /**
     * @param rescuedData bronze's rescued data column ({@code --rescued-data})
     */
    public static Query create(
            String name,
            RunOptions options,
            String api,
            boolean outer,
            boolean rescuedData,
            KafkaSettings kafka) {
        if (rescuedData && !name.equals(BronzeQuery.NAME)) {
            throw new IllegalArgumentException(
                    "--rescued-data is an option of "
                            + BronzeQuery.NAME
                            + " (and of "
                            + Pipeline.NAME
                            + ", for its bronze layer), not of '"
                            + name
                            + "'"
                            + (name.equals(KafkaBronzeQuery.NAME)
                                    ? ": kafka-bronze lands the raw records, with no schema to"
                                            + " rescue from"
                                    : ""));
        }
        if (kafka.readsKafka() && !name.equals(KafkaBronzeQuery.NAME)) {
            throw new IllegalArgumentException(
                    "--subscribe, --subscribe-pattern, --assign and --starting-offsets are options"
                            + " of "
                            + KafkaBronzeQuery.NAME
                            + ", not of '"
                            + name
                            + "'");
        }
        if (kafka.topic() != null && !name.equals(BronzeToKafkaQuery.NAME)) {
            throw new IllegalArgumentException(
                    "--topic is an option of "
                            + BronzeToKafkaQuery.NAME
                            + ", not of '"
                            + name
                            + "'"
                            + (name.equals(KafkaBronzeQuery.NAME) ? ": use --subscribe T" : ""));
        }
        if (!api.equals("datastream") && !api.equals("table")) {
            throw new IllegalArgumentException(
                    "unknown --api '" + api + "': use datastream or table");
        }
        OutputMode mode = options.outputMode();
        switch (name) {
            case BronzeQuery.NAME:
                mode.requireAppendForTableSink(name, BronzeQuery.TABLE);
                return new BronzeQuery(options.events(), rescuedData);
            case "win5":
                return WindowQuery.win5(api).outputMode(mode, database(mode, options));
            case "sliding":
                return WindowQuery.sliding(api).outputMode(mode, database(mode, options));
            case "sessions":
                return WindowQuery.sessions(api).outputMode(mode, database(mode, options));
            case "dedup":
                mode.requireAppendForTableSink(name, "events_dedup");
                return DedupQuery.dedup(api);
            case "silver":
                mode.requireAppendForTableSink(name, "events_silver");
                return DedupQuery.silver(api);
            case "latest":
                // An upsert already: update writes the same rows as append; complete needs an
                // aggregation.
                mode.refuseCompleteWithoutAggregation(name);
                return new LatestQuery(options.database());
            case "gold":
                return WindowQuery.gold(api).outputMode(mode, database(mode, options));
            case "pipeline":
                throw new IllegalArgumentException(
                        "'pipeline' is three queries (bronze, silver, gold): use 'run pipeline' or"
                                + " Pipeline.run");
            case "enriched":
                mode.requireAppendForTableSink(name, "events_enriched");
                return new EnrichedQuery(options.warehouse(), api);
            case "view-then-buy":
                if (mode == OutputMode.UPDATE) {
                    throw new IllegalArgumentException(
                            "query 'view-then-buy' cannot run in update mode: a join of two streams"
                                + " writes in append mode only, as in Spark (\"Join between two"
                                + " streaming DataFrames/Datasets is not supported in Update output"
                                + " mode, only in Append output mode\"). Use --output-mode append");
                }
                mode.refuseCompleteWithoutAggregation(name);
                return new ViewThenBuyQuery(outer, api);
            case KafkaBronzeQuery.NAME:
                mode.requireAppendForTableSink(name, "kafka_bronze");
                return new KafkaBronzeQuery(kafka.sourceOptions());
            case KafkaEventsQuery.NAME:
                mode.requireAppendForTableSink(name, "kafka_events");
                return new KafkaEventsQuery();
            case BronzeToKafkaQuery.NAME:
                {
                    mode.refuseCompleteWithoutAggregation(name);
                    var properties = kafka.clientProperties();
                    return new BronzeToKafkaQuery(
                            kafka.bootstrapServers(properties), kafka.topic(), properties);
                }
            default:
                throw new IllegalArgumentException(
                        "unknown query '"
                                + name
                                + "': the queries are "
                                + String.join(", ", NAMES));
        }
    }

    private static Database database(OutputMode mode, RunOptions options) {
        return mode == OutputMode.UPDATE ? options.database() : null;
    }

    /** For picocli's help text. */
    public static final class Names implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return NAMES.iterator();
        }
    }
}
