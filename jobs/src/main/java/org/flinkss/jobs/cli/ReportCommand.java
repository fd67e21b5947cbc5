package org.flinkss.jobs.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import org.flinkss.jobs.cli.options.BaseFolder;
import org.flinkss.jobs.cli.options.DataOptions;
import org.flinkss.jobs.report.ReportGatherer;
import org.flinkss.jobs.report.ReportPage;
import org.flinkss.runtime.jdbc.Database;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;

import javax.annotation.Nullable;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code report}: one self-contained HTML file (its charts drawn by Apache ECharts, inlined; no
 * network) of every query's batches and every windowed table, the late rows kept and the lines
 * quarantined. The data is gathered by {@link ReportGatherer} and rendered by {@link ReportPage}.
 */
@Command(
        name = "report",
        mixinStandardHelpOptions = true,
        description =
                "Write a self-contained HTML report of every query's batches, every windowed"
                        + " table, the late rows and the quarantined lines.")
public final class ReportCommand implements Callable<Integer> {

    @Mixin DataOptions data;

    @Option(
            names = "--out",
            paramLabel = "FILE",
            description = "where to write it (default: <base>/report.html)")
    Path out;

    @Override
    public Integer call() throws IOException {
        if (data.objectStoreBase()) {
            org.apache.flink.core.fs.Path base = data.baseLocation();
            data.initializeStorage();
            BaseFolder.requireForReport(base);
            org.apache.flink.core.fs.Path file =
                    out != null
                            ? Storage.location(out)
                            : new org.apache.flink.core.fs.Path(base, "report.html");
            write(base, data.openWarehouse(), data.existingDatabase(), file);
            System.out.println("report: " + file);
            return 0;
        }
        BaseFolder.requireForReport(data.base);
        Path file = out != null ? out : data.base.resolve("report.html");
        write(data.base, data.openWarehouse(), data.existingDatabase(), file);
        System.out.println("report: " + file.toAbsolutePath());
        return 0;
    }

    /**
     * The report of a base anywhere (a local folder or {@code s3://bucket/prefix}), written to
     * {@code file} anywhere.
     */
    public static void write(
            org.apache.flink.core.fs.Path base,
            Warehouse warehouse,
            @Nullable Database database,
            org.apache.flink.core.fs.Path file)
            throws IOException {
        String html =
                ReportPage.render(
                        new ReportGatherer(warehouse, database).gather(base, base.toString()));
        Storage.replaceText(file, html);
    }

    /**
     * The report of {@code base}: its queries' progress, and the windowed tables of the warehouse
     * and, when there is one, of the SQL database (where update mode keeps them).
     */
    public static void write(Path base, Warehouse warehouse, @Nullable Database database, Path file)
            throws IOException {
        String html = ReportPage.render(new ReportGatherer(warehouse, database).gather(base));
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, html, StandardCharsets.UTF_8);
    }
}
