package org.flinkss.sparkdiff.oracle;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A table's history as Spark reads it ({@code DESCRIBE HISTORY}, issue 35 point 3): the project's
 * commits carry their batch's completeness ({@code flinkss.*}) in {@code operationParameters}, and
 * delta-spark must read the history whole, those parameters shown.
 */
final class HistoryOracle {

    private final SparkSession spark;

    HistoryOracle(SparkSession spark) {
        this.spark = spark;
    }

    /**
     * {@code read-history <table dir> <file>}: one line a version, newest first: {@code
     * version,operation,key=value;...} (the operation's parameters, sorted by key).
     */
    String read(Path table, Path file) throws IOException {
        List<String> lines = new ArrayList<>();
        for (Row r :
                spark.sql("DESCRIBE HISTORY delta.`" + table + "`")
                        .select("version", "operation", "operationParameters")
                        .collectAsList()) {
            Map<String, String> parameters = new TreeMap<>();
            if (!r.isNullAt(2)) {
                parameters.putAll(r.<String, String>getJavaMap(2));
            }
            StringBuilder line = new StringBuilder();
            line.append(r.getLong(0)).append(',').append(r.getString(1)).append(',');
            parameters.forEach((k, v) -> line.append(k).append('=').append(v).append(';'));
            lines.add(line.toString());
        }
        Files.createDirectories(file.getParent());
        Files.write(file, lines, StandardCharsets.UTF_8);
        return "read-history " + table + " " + lines.size() + " versions";
    }
}
