package org.flinkss.jobs.bench.latency;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;

/**
 * The Java side of {@code scripts/bench-latency} (issue 36): end-to-end latency of a query that
 * reads a topic and writes a topic, while it runs. The script starts the query ({@code sql --file
 * scripts/bench-latency.d/<query>.sql}) and calls, from the runnable jar:
 *
 * <ul>
 *   <li>{@code create-topics --bootstrap-servers H:P [--partitions N] TOPIC...}: creates the
 *       topics, refusing any that exists (so that the script deletes only what it made);
 *   <li>{@code measure --bootstrap-servers H:P --input T --output T --query bronze|win5 --delivery
 *       at-least-once|exactly-once --rate R --seconds S [--warm-seconds M] [--drain-seconds D]
 *       [--warmup-seconds W] [--by-second FILE]}: a warm-up (one event every 100 ms until the
 *       output topic shows a record, within W seconds: the query is up), then {@code R * M} events
 *       at R a second that are not measured (the query's code warms up at the rate; default M 0),
 *       then {@code R * S} measured events on the same schedule ({@link PacedProducer}), read from
 *       the output topic ({@link OutputReader}) until all they give has arrived or D seconds after
 *       the last was sent; prints one Markdown row: what was sent and read, missing and duplicated,
 *       latency p50, p99 and max in milliseconds. {@code --by-second FILE} also writes the
 *       latencies second by second of send time, a Markdown table;
 *   <li>{@code delete-topics --bootstrap-servers H:P TOPIC...}: deletes the topics named;
 *   <li>{@code header}: the header of the rows {@code measure} prints.
 * </ul>
 *
 * Exit codes: 0 measured (whatever the counts; the row says them), 1 a failure (no output within
 * the warm-up: the query is not running), 2 wrong arguments.
 */
public final class LatencyBenchmark {

    /** The header of the rows {@code measure} prints. */
    public static final String HEADER =
            "| query | delivery | rate/s | sent | sent at /s | behind ms | read | missing |"
                    + " duplicated | p50 ms | p99 ms | max ms |\n"
                    + "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
                    + " ---: |";

    private LatencyBenchmark() {}

    public static void main(String[] args) {
        try {
            System.exit(run(args, System.out));
        } catch (IllegalArgumentException e) {
            System.err.println("bench-latency: " + e.getMessage());
            System.exit(2);
        } catch (Exception e) {
            System.err.println("bench-latency: " + e.getMessage());
            System.exit(1);
        }
    }

    static int run(String[] args, PrintStream out) throws Exception {
        if (args.length == 0) {
            throw new IllegalArgumentException(
                    "give create-topics, measure or delete-topics (see LatencyBenchmark's"
                            + " Javadoc)");
        }
        if (args[0].equals("header")) {
            out.println(HEADER);
            return 0;
        }
        Map<String, String> options = new HashMap<>();
        List<String> topics = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            if (args[i].startsWith("--")) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(args[i] + " needs a value");
                }
                options.put(args[i].substring(2), args[++i]);
            } else {
                topics.add(args[i]);
            }
        }
        String servers = required(options, "bootstrap-servers");
        switch (args[0]) {
            case "create-topics" ->
                    createTopics(servers, topics, intOption(options, "partitions", 3));
            case "delete-topics" -> deleteTopics(servers, topics);
            case "measure" -> out.println(measure(servers, options));
            default -> throw new IllegalArgumentException("no command '" + args[0] + "'");
        }
        return 0;
    }

    private static String measure(String servers, Map<String, String> options) throws Exception {
        String query = required(options, "query");
        String delivery = required(options, "delivery");
        OutputTally tally =
                switch (query) {
                    case "bronze" -> new EventTally();
                    case "win5" -> new WindowTally();
                    default ->
                            throw new IllegalArgumentException(
                                    "--query takes bronze or win5, not '" + query + "'");
                };
        boolean readCommitted =
                switch (delivery) {
                    case "at-least-once" -> false;
                    case "exactly-once" -> true;
                    default ->
                            throw new IllegalArgumentException(
                                    "--delivery takes at-least-once or exactly-once, not '"
                                            + delivery
                                            + "'");
                };
        int rate = intOption(options, "rate", 1000);
        int seconds = intOption(options, "seconds", 10);
        LatencyRun run =
                new LatencyRun(
                        servers,
                        required(options, "input"),
                        required(options, "output"),
                        readCommitted,
                        intOption(options, "warmup-seconds", 600),
                        nonNegativeOption(options, "warm-seconds", 0),
                        intOption(options, "drain-seconds", 60));
        LatencyRun.Result result = run.measure(tally, rate, (long) rate * seconds);
        OutputTally.Counts c = result.counts();
        String bySecond = options.get("by-second");
        if (bySecond != null) {
            Files.writeString(Path.of(bySecond), bySecondTable(c.bySecond()));
        }
        return String.format(
                Locale.ROOT,
                "| %s | %s | %,d | %,d | %,.0f | %,d | %,d | %,d | %,d | %s | %s | %s |",
                query,
                delivery,
                rate,
                result.sent().events(),
                result.sent().rate(),
                result.sent().maxBehindMillis(),
                c.read(),
                c.missing(),
                c.duplicated(),
                millis(c.latency().p50()),
                millis(c.latency().p99()),
                millis(c.latency().max()));
    }

    /** The latencies of each second of send time, from the first measured event's, in Markdown. */
    static String bySecondTable(Map<Long, Latencies.Summary> bySecond) {
        StringBuilder table =
                new StringBuilder(
                        "| second | read | p50 ms | p99 ms | max ms |\n"
                                + "| ---: | ---: | ---: | ---: | ---: |\n");
        bySecond.forEach(
                (second, s) ->
                        table.append(
                                String.format(
                                        Locale.ROOT,
                                        "| %d | %,d | %s | %s | %s |\n",
                                        second,
                                        s.count(),
                                        millis(s.p50()),
                                        millis(s.p99()),
                                        millis(s.max()))));
        return table.toString();
    }

    private static String millis(long value) {
        return value < 0 ? "-" : String.format(Locale.ROOT, "%,d", value);
    }

    private static void createTopics(String servers, List<String> topics, int partitions)
            throws InterruptedException {
        try (Admin admin = admin(servers)) {
            Set<String> existing = admin.listTopics().names().get();
            for (String topic : topics) {
                if (existing.contains(topic)) {
                    throw new IllegalStateException(
                            "topic "
                                    + topic
                                    + " exists at "
                                    + servers
                                    + ": bench-latency writes only topics it creates; delete it"
                                    + " or choose another run");
                }
            }
            admin.createTopics(
                            topics.stream()
                                    .map(t -> new NewTopic(t, partitions, (short) 1))
                                    .toList())
                    .all()
                    .get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("creating topics " + topics + ": " + e.getCause(), e);
        }
    }

    private static void deleteTopics(String servers, List<String> topics)
            throws InterruptedException {
        try (Admin admin = admin(servers)) {
            admin.deleteTopics(topics).all().get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("deleting topics " + topics + ": " + e.getCause(), e);
        }
    }

    private static Admin admin(String servers) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers));
    }

    private static String required(Map<String, String> options, String name) {
        String value = options.get(name);
        if (value == null) {
            throw new IllegalArgumentException("--" + name + " is required");
        }
        return value;
    }

    private static int intOption(Map<String, String> options, String name, int otherwise) {
        return wholeNumber(options, name, otherwise, 1, "a positive whole number");
    }

    private static int nonNegativeOption(Map<String, String> options, String name, int otherwise) {
        return wholeNumber(options, name, otherwise, 0, "a whole number, 0 or more");
    }

    private static int wholeNumber(
            Map<String, String> options, String name, int otherwise, int least, String what) {
        String value = options.get(name);
        if (value == null) {
            return otherwise;
        }
        try {
            int n = Integer.parseInt(value);
            if (n >= least) {
                return n;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new IllegalArgumentException(
                "--" + name + " takes " + what + ", not '" + value + "'");
    }
}
