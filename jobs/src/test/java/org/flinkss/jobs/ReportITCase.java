package org.flinkss.jobs;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.queries.Api;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.course.queries.QueryCatalog;
import org.flinkss.course.queries.WindowQuery;
import org.flinkss.jobs.cli.ReportCommand;
import org.flinkss.runtime.query.OutputMode;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Topic 11.15's report: one HTML file, charts of every query's batches and of the windowed tables.
 */
class ReportITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path base;

    private Path report() throws Exception {
        RunOptions options = BronzeITCase.options(base, 2);
        for (int batch = 1; batch <= 3; batch++) {
            EventFiles.writeBatch(
                    options.events(), batch, EventGenerator.events((batch - 1) * 500L, 500));
            QueryRunner.run(new BronzeQuery(options.events()), options);
            QueryRunner.run(WindowQuery.win5(Api.DATASTREAM), options);
        }
        Path file = base.resolve("report.html");
        ReportCommand.write(
                Storage.location(base.toFile()),
                new Warehouse(options.warehouse()),
                null,
                Storage.location(file.toFile()));
        return file;
    }

    @Test
    void theReportIsOneSelfContainedPageWithAChartPerMeasure() throws Exception {
        String html = Files.readString(report(), StandardCharsets.UTF_8);

        // Nothing to fetch: no script, no external style, image or font (xmlns is a name, not a
        // fetch).
        assertThat(html)
                .startsWith("<!DOCTYPE html>")
                .doesNotContain("<script")
                .doesNotContain("src=")
                .doesNotContain("href=")
                .doesNotContain("@import")
                .doesNotContain("url(");
        // bronze: rows in, rows/s, duration; win5: the same plus watermark and state rows;
        // events_5min: events, amount.
        assertThat(count(html, "<svg class=\"chart\"")).isEqualTo(3 + 5 + 2);
        assertThat(html)
                .contains(
                        "<h3>bronze</h3>",
                        "<h3>win5</h3>",
                        "events_5min (",
                        "state rows by batch",
                        "events per window");
        // Three batches of bronze, three points on its chart of rows in.
        Matcher rowsIn =
                Pattern.compile("aria-label=\"rows in by batch\">(.*?)</svg>").matcher(html);
        assertThat(rowsIn.find()).isTrue();
        assertThat(count(rowsIn.group(1), "<circle")).isEqualTo(3);
    }

    @Test
    void theReportLoadsInAHeadlessBrowserAndDrawsItsCharts() throws Exception {
        Path chromium = Paths.get("/usr/bin/chromium");
        Assumptions.assumeTrue(
                Files.isExecutable(chromium),
                "SKIPPED: no /usr/bin/chromium here (apt-get install chromium) to render the report"
                        + " in a real browser");
        Path file = report();
        Path png = base.resolve("report.png");
        Process dump =
                new ProcessBuilder(
                                chromium.toString(),
                                "--headless",
                                "--no-sandbox",
                                "--disable-gpu",
                                "--disable-quic",
                                "--no-first-run",
                                "--disable-background-networking",
                                "--disable-component-update",
                                "--disable-sync",
                                "--user-data-dir=" + base.resolve("chromium-dump"),
                                "--dump-dom",
                                file.toUri().toString())
                        .redirectError(base.resolve("chromium-dump.log").toFile())
                        .start();
        String dom = new String(dump.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(dump.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(dump.exitValue()).isZero();
        // The browser parsed the page into a DOM that has every chart with its lines drawn.
        assertThat(count(dom, "<svg class=\"chart\"")).isEqualTo(10);
        assertThat(count(dom, "<path d=\"M")).isGreaterThanOrEqualTo(10);

        Process shot =
                new ProcessBuilder(
                                chromium.toString(),
                                "--headless",
                                "--no-sandbox",
                                "--disable-gpu",
                                "--disable-quic",
                                "--no-first-run",
                                "--disable-background-networking",
                                "--disable-component-update",
                                "--disable-sync",
                                "--user-data-dir=" + base.resolve("chromium-shot"),
                                "--window-size=1200,1600",
                                "--screenshot=" + png,
                                file.toUri().toString())
                        .redirectErrorStream(true)
                        .redirectOutput(base.resolve("chromium-shot.log").toFile())
                        .start();
        assertThat(shot.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(Files.size(png)).isGreaterThan(10_000);
    }

    @Test
    void windowedTablesOfTheSqlDatabaseAreChartedAndBatchAxesShowWholeBatchIds() throws Exception {
        // Step 1: three batches through bronze, then win5 in update mode: events_5min is kept in
        // the SQL database (SQLite in the warehouse), not in the warehouse.
        RunOptions options = BronzeITCase.options(base, 2);
        RunOptions update =
                RunOptions.builder()
                        .base(Storage.location(base.toFile()))
                        .parallelism(2)
                        .printProgress(false)
                        .outputMode(OutputMode.UPDATE)
                        .build();
        for (int batch = 1; batch <= 3; batch++) {
            EventFiles.writeBatch(
                    options.events(), batch, EventGenerator.events((batch - 1) * 500L, 500));
            QueryRunner.run(new BronzeQuery(options.events()), options);
            QueryRunner.run(QueryCatalog.WIN5.create(update, Api.DATASTREAM), update);
        }
        assertThat(new Warehouse(options.warehouse()).exists("events_5min")).isFalse();

        // Step 2: the command line's report finds the database by itself.
        assertThat(Main.execute("report", "--base", base.toString())).isZero();
        String html = Files.readString(base.resolve("report.html"), StandardCharsets.UTF_8);

        // Every window the database holds is charted.
        long windows = options.database().count("events_5min");
        assertThat(windows).isPositive();
        assertThat(html)
                .contains("<h3>events_5min (SQL database, update mode: " + windows + " windows");
        Matcher chart =
                Pattern.compile("aria-label=\"events per window\">(.*?)</svg>").matcher(html);
        assertThat(chart.find()).as("a chart of events per window").isTrue();
        // Batches 0, 1 and 2: the axis is labelled 0, 1, 2, not 0.0, 0.5, 1.0, 1.5, 2.0.
        Matcher rowsIn =
                Pattern.compile("aria-label=\"rows in by batch\">(.*?)</svg>").matcher(html);
        assertThat(rowsIn.find()).isTrue();
        Matcher ticks =
                Pattern.compile("text-anchor=\"middle\">([^<]*)</text>").matcher(rowsIn.group(1));
        List<String> labels = new ArrayList<>();
        while (ticks.find()) {
            labels.add(ticks.group(1));
        }
        assertThat(labels).containsExactly("0", "1", "2", "batch");
    }

    private static int count(String s, String what) {
        return s.split(Pattern.quote(what), -1).length - 1;
    }
}
