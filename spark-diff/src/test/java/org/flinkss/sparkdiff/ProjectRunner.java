package org.flinkss.sparkdiff;

import org.flinkss.course.queries.Api;
import org.flinkss.course.queries.QueryCatalog;
import org.flinkss.jobs.Main;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * The project's side: its command line, {@code org.flinkss.jobs.Main.execute(...)}, in this JVM (so
 * runs use the test's MiniCluster), with {@code run <query>} and {@code table export <table>
 * --csv}. What a command prints is captured per thread, so several bases can run at once.
 */
final class ProjectRunner {

    /** System.out and System.err, sent to the calling thread's buffer while it runs a command. */
    private static final class PerThread extends OutputStream {
        private final PrintStream original;
        private final ThreadLocal<ByteArrayOutputStream> buffer;

        PerThread(PrintStream original, ThreadLocal<ByteArrayOutputStream> buffer) {
            this.original = original;
            this.buffer = buffer;
        }

        private OutputStream target() {
            ByteArrayOutputStream b = buffer.get();
            return b != null ? b : original;
        }

        @Override
        public void write(int b) {
            try {
                target().write(b);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void write(byte[] b, int off, int len) {
            try {
                target().write(b, off, len);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void flush() {
            try {
                target().flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static final ThreadLocal<ByteArrayOutputStream> OUT = new ThreadLocal<>();
    private static final ThreadLocal<ByteArrayOutputStream> ERR = new ThreadLocal<>();
    private static boolean installed;

    /** Where this test's own lines go (the real standard output). */
    static final PrintStream CONSOLE = System.out;

    static synchronized void install() {
        if (!installed) {
            System.setOut(
                    new PrintStream(new PerThread(System.out, OUT), true, StandardCharsets.UTF_8));
            System.setErr(
                    new PrintStream(new PerThread(System.err, ERR), true, StandardCharsets.UTF_8));
            installed = true;
        }
    }

    /** What a command printed, and its exit code. */
    record Output(int code, String out, String err) {}

    static Output execute(String... args) {
        install();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        OUT.set(out);
        ERR.set(err);
        int code;
        try {
            code = Main.execute(args);
        } finally {
            System.out.flush();
            System.err.flush();
            OUT.remove();
            ERR.remove();
        }
        return new Output(
                code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /**
     * {@code run <query> --base <base> --api <api> --parallelism <p> --quiet} and {@code more};
     * fails with what it printed.
     */
    static void run(Path base, DiffQuery query, String api, int parallelism, String... more) {
        if (query.sqlFile != null) {
            executeOrFail(
                    "sql",
                    "--file",
                    query.sqlPath().toString(),
                    "--base",
                    base.toString(),
                    "--parallelism",
                    String.valueOf(parallelism),
                    "--quiet");
            return;
        }
        List<String> args = new ArrayList<>(List.of("run"));
        args.addAll(query.runArgs());
        // A query written in one API only (bronze) runs in it whatever the matrix cell's API.
        Set<Api> apis = QueryCatalog.named(query.runArgs().get(0)).apis();
        if (!apis.contains(Api.parse(api))) {
            api = apis.iterator().next().text();
        }
        args.addAll(
                List.of(
                        "--base",
                        base.toString(),
                        "--api",
                        api,
                        "--parallelism",
                        String.valueOf(parallelism),
                        "--quiet"));
        args.addAll(List.of(more));
        executeOrFail(args.toArray(String[]::new));
    }

    /** A command that must exit 0; fails with what it printed. */
    static Output executeOrFail(String... args) {
        Output o = execute(args);
        if (o.code() != 0) {
            throw new IllegalStateException(
                    "the project's `"
                            + String.join(" ", args)
                            + "` exited "
                            + o.code()
                            + ":\n"
                            + o.out()
                            + o.err());
        }
        return o;
    }

    /** {@code table export <table> --csv}: the header and the rows; no table yet is no rows. */
    static List<String> export(Path base, String table) {
        Output o = execute("table", "export", table, "--csv", "--base", base.toString());
        if (o.code() != 0) {
            if (o.err().contains("no table '" + table + "'")) {
                return List.of("");
            }
            throw new IllegalStateException(
                    "the project's `table export "
                            + table
                            + " --csv --base "
                            + base
                            + "` exited "
                            + o.code()
                            + ":\n"
                            + o.out()
                            + o.err());
        }
        List<String> lines = new ArrayList<>(Arrays.asList(o.out().split("\n", -1)));
        if (!lines.isEmpty() && lines.get(lines.size() - 1).isEmpty()) {
            lines.remove(lines.size() - 1);
        }
        return lines;
    }
}
