import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.TimestampType;

import java.util.ArrayList;
import java.util.List;

/**
 * A second, independent Delta reader for the tests: Spark 4.0 with Delta 4.0 in a JVM of its own
 * (run as a single-file program on the classpath of pom.xml beside it).
 *
 * <p>Arguments: table paths, each optionally {@code path@version}. For each, prints
 * {@code TABLE <arg>}, {@code SCHEMA <simpleString>}, one {@code ROW v1|v2|...} per row sorted by
 * every column (timestamps as epoch microseconds, dates ISO, nulls as {@code null}), one
 * {@code HISTORY <version> <operation>} per version, then {@code END}. An argument
 * {@code sql:<statement>} is run instead, in order: {@code ROW OK} or {@code ROW ERROR <message's
 * first line>}.
 */
public class SparkDeltaRead {

    public static void main(String[] args) {
        SparkSession spark = SparkSession.builder()
                .master("local[1]")
                .appName("delta-read-back")
                .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
                .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
                .config("spark.sql.session.timeZone", "UTC")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "1")
                .getOrCreate();
        spark.sparkContext().setLogLevel("ERROR");
        for (String arg : args) {
            if (arg.startsWith("sql:")) {
                // A statement Spark runs (an INSERT that its constraints may refuse), in order.
                System.out.println("TABLE " + arg);
                System.out.println("SCHEMA -");
                try {
                    spark.sql(arg.substring(4)).collectAsList();
                    System.out.println("ROW OK");
                } catch (Exception e) {
                    String message = String.valueOf(e.getMessage()).strip();
                    int newline = message.indexOf('\n');
                    System.out.println("ROW ERROR " + (newline < 0 ? message : message.substring(0, newline)));
                }
                System.out.println("END");
                continue;
            }
            int at = arg.lastIndexOf('@');
            String path = at < 0 ? arg : arg.substring(0, at);
            Dataset<Row> df = at < 0
                    ? spark.read().format("delta").load(path)
                    : spark.read().format("delta").option("versionAsOf", arg.substring(at + 1)).load(path);
            System.out.println("TABLE " + arg);
            System.out.println("SCHEMA " + df.schema().simpleString());
            List<String> columns = new ArrayList<>();
            for (StructField f : df.schema().fields()) {
                String c = "`" + f.name() + "`";
                columns.add(f.dataType() instanceof TimestampType ? "CAST(unix_micros(" + c + ") AS STRING)" : "CAST(" + c + " AS STRING)");
            }
            Dataset<Row> strings = df.selectExpr(columns.toArray(new String[0]));
            List<String> rows = new ArrayList<>();
            for (Row r : strings.collectAsList()) {
                StringBuilder line = new StringBuilder();
                for (int i = 0; i < r.length(); i++) {
                    line.append(i == 0 ? "" : "|").append(r.isNullAt(i) ? "null" : r.getString(i));
                }
                rows.add(line.toString());
            }
            rows.sort(null);
            rows.forEach(r -> System.out.println("ROW " + r));
            for (Row h : spark.sql("DESCRIBE HISTORY delta.`" + path + "`").select("version", "operation").collectAsList()) {
                System.out.println("HISTORY " + h.get(0) + " " + h.get(1));
            }
            System.out.println("END");
        }
        spark.stop();
    }
}
