package org.flinkss.jobs.cli.output;

import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/**
 * The command line's output in UTF-8, whatever the platform's charset: under a C or POSIX locale
 * Java writes standard output in US-ASCII, and a table's text ({@code vüé 漢字}) would come out as
 * {@code v?? ??}. The bytes go to the current {@code System.out} (or {@code System.err}) as they
 * are, so whoever redirected it (a test, {@code flink run}) still gets them.
 */
public final class Stdout {

    private Stdout() {}

    /** Standard output, UTF-8; flush it when done. */
    public static PrintStream utf8() {
        return new PrintStream(System.out, true, StandardCharsets.UTF_8);
    }

    /** Standard error, UTF-8: a run's notes and warnings. */
    public static PrintStream utf8ErrStream() {
        return new PrintStream(System.err, true, StandardCharsets.UTF_8);
    }

    /** Standard error as picocli's writer, UTF-8, flushed at every line. */
    public static PrintWriter utf8Err() {
        return new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true);
    }
}
