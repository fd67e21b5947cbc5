package org.flinkss.jobs.cli;

import org.apache.flink.core.fs.Path;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import org.flinkss.jobs.cli.options.BaseFolder;
import org.flinkss.jobs.cli.options.DataOptions;
import org.flinkss.jobs.report.ReportGatherer;
import org.flinkss.jobs.report.ReportPage;
import org.flinkss.runtime.sink.jdbc.Database;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;

import javax.annotation.Nullable;

import java.io.File;
import java.io.IOException;
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
    File out;

    @Override
    public Integer call() throws IOException {
        Path base = data.base();
        if (data.objectStoreBase()) {
            data.initializeStorage();
            BaseFolder.requireForReport(base);
        } else {
            BaseFolder.requireForReport(data.localBase());
        }
        Path file = out != null ? Storage.location(out) : new Path(base, "report.html");
        write(base, data.openWarehouse(), data.existingDatabase(), file);
        System.out.println("report: " + Storage.shown(file));
        return 0;
    }

    /**
     * The report of {@code base} (a local folder or {@code s3://bucket/prefix}), written to {@code
     * file} anywhere: its queries' progress, and the windowed tables of the warehouse and, when
     * there is one, of the SQL database (where update mode keeps them).
     */
    public static void write(Path base, Warehouse warehouse, @Nullable Database database, Path file)
            throws IOException {
        String html =
                ReportPage.render(
                        new ReportGatherer(warehouse, database).gather(base, Storage.shown(base)));
        Storage.replaceText(file, html);
    }
}
