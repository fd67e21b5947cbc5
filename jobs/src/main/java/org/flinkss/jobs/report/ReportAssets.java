package org.flinkss.jobs.report;

import org.flinkss.jobs.build.BuildInfo;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * What every report inlines: the charting library (Apache ECharts, from its WebJar, unpacked into
 * the jar by the build at the WebJar's own path) and the page's own script and style.
 */
final class ReportAssets {

    private ReportAssets() {}

    /** The ECharts version the build inlines ({@code jobs/pom.xml}). */
    static String echartsVersion() {
        return BuildInfo.current().echartsVersion();
    }

    static String echarts() {
        String path =
                "/META-INF/resources/webjars/echarts/" + echartsVersion() + "/dist/echarts.min.js";
        String script = read(path);
        if (script.toLowerCase(Locale.ROOT).contains("</script")) {
            throw new IllegalStateException(path + " would end the report's <script> element");
        }
        return script;
    }

    static String script() {
        return read("/flinkss-report/report.js");
    }

    static String style() {
        return read("/flinkss-report/report.css");
    }

    private static String read(String path) {
        try (InputStream in = ReportAssets.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException(
                        path
                                + " is not in the jar: build it with Maven (jobs/pom.xml unpacks"
                                + " the report's assets)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path, e);
        }
    }
}
