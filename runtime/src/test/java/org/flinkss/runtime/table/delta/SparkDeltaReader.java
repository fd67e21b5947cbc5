package org.flinkss.runtime.table.delta;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Spark 4.0 with Delta 4.0 reading tables, in a JVM of its own: Spark's Jackson, Scala and Hadoop
 * would clash with Flink's on one classpath. The program is {@code
 * src/test/spark-reader/SparkDeltaRead.java}, run as a single-file source program; its classpath is
 * resolved once by Maven from the {@code pom.xml} beside it and kept in {@code
 * target/spark-reader.classpath}.
 */
final class SparkDeltaReader {

    private static final Path HOME = Paths.get("src/test/spark-reader").toAbsolutePath();
    private static final Path CLASSPATH =
            Paths.get("target/spark-reader.classpath").toAbsolutePath();
    private static final List<String> JAVA_17_OPENS =
            List.of(
                    "-XX:+IgnoreUnrecognizedVMOptions",
                    "--add-opens=java.base/java.lang=ALL-UNNAMED",
                    "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
                    "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
                    "--add-opens=java.base/java.io=ALL-UNNAMED",
                    "--add-opens=java.base/java.net=ALL-UNNAMED",
                    "--add-opens=java.base/java.nio=ALL-UNNAMED",
                    "--add-opens=java.base/java.util=ALL-UNNAMED",
                    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
                    "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
                    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                    "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
                    "--add-opens=java.base/sun.security.action=ALL-UNNAMED",
                    "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
                    "-Djdk.reflect.useDirectMethodHandle=false");

    /** One table as Spark read it. */
    record Table(String schema, List<String> rows, List<String> history) {}

    private SparkDeltaReader() {}

    /** Reads each table ({@code path} or {@code path@version}) in one Spark run. */
    static Map<String, Table> read(List<String> tables) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx1g");
        command.addAll(JAVA_17_OPENS);
        command.add("-cp");
        command.add(classpath());
        command.add(HOME.resolve("SparkDeltaRead.java").toString());
        command.addAll(tables);
        Path log = Files.createTempFile("spark-read", ".log");
        ProcessBuilder pb =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
        Process spark = pb.start();
        if (!spark.waitFor(20, TimeUnit.MINUTES)) {
            spark.destroyForcibly();
            throw new IllegalStateException(
                    "Spark did not finish reading in 20 minutes; its output: " + log);
        }
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        if (spark.exitValue() != 0) {
            throw new IllegalStateException(
                    "Spark failed to read the tables (exit "
                            + spark.exitValue()
                            + "):\n"
                            + String.join(
                                    "\n",
                                    lines.subList(Math.max(0, lines.size() - 60), lines.size())));
        }
        Map<String, Table> result = new LinkedHashMap<>();
        String table = null;
        String schema = null;
        List<String> rows = new ArrayList<>();
        List<String> history = new ArrayList<>();
        for (String line : lines) {
            if (line.startsWith("TABLE ")) {
                table = line.substring(6);
            } else if (line.startsWith("SCHEMA ")) {
                schema = line.substring(7);
            } else if (line.startsWith("ROW ")) {
                rows.add(line.substring(4));
            } else if (line.startsWith("HISTORY ")) {
                history.add(line.substring(8));
            } else if (line.equals("END")) {
                result.put(table, new Table(schema, rows, history));
                rows = new ArrayList<>();
                history = new ArrayList<>();
            }
        }
        Files.deleteIfExists(log);
        return result;
    }

    private static String classpath() throws IOException, InterruptedException {
        if (!Files.exists(CLASSPATH)) {
            Process mvn =
                    new ProcessBuilder(
                                    "mvn",
                                    "-B",
                                    "-q",
                                    "-f",
                                    HOME.resolve("pom.xml").toString(),
                                    "dependency:build-classpath",
                                    "-Dmdep.outputFile=" + CLASSPATH)
                            .inheritIO()
                            .start();
            if (!mvn.waitFor(30, TimeUnit.MINUTES) || mvn.exitValue() != 0) {
                throw new IllegalStateException(
                        "cannot resolve Spark 4.0 + delta-spark 4.0 from "
                                + HOME.resolve("pom.xml")
                                + " with mvn (is Maven Central reachable?)");
            }
        }
        String cp = Files.readString(CLASSPATH).trim();
        for (String jar : cp.split(File.pathSeparator)) {
            if (!Files.exists(Paths.get(jar))) {
                Files.delete(CLASSPATH); // the local repository changed: resolve again next time
                return classpath();
            }
        }
        return cp;
    }

    /** A row as the Spark program prints it: timestamps in epoch microseconds, nulls as "null". */
    static String line(List<Object> values) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < values.size(); i++) {
            Object v = values.get(i);
            String s =
                    v instanceof Instant t
                            ? String.valueOf(ChronoUnit.MICROS.between(Instant.EPOCH, t))
                            : String.valueOf(v);
            line.append(i == 0 ? "" : "|").append(s);
        }
        return line.toString();
    }

    static List<String> lines(List<List<Object>> rows) {
        List<String> lines = new ArrayList<>();
        rows.forEach(r -> lines.add(line(r)));
        lines.sort(null);
        return lines;
    }
}
