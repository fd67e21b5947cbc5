package org.flinkss.jobs;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One command run in this JVM as {@code java -jar} runs it ({@link Main#execute}), with what it
 * printed: its exit code, standard output and standard error. Runs one at a time (the streams are
 * the JVM's).
 */
public record CliOutput(int code, String out, String err) {

    public static synchronized CliOutput of(String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int code;
        try {
            System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
            code = Main.execute(args);
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        return new CliOutput(
                code, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    }

    /** A command that must exit 0; the assertion shows what it printed otherwise. */
    public static CliOutput succeeded(String... args) {
        CliOutput o = of(args);
        assertThat(o.code()).as("%s: %s%s", List.of(args), o.out(), o.err()).isZero();
        return o;
    }

    /** A command that must fail (exit other than 0); the assertion shows what it printed. */
    public static CliOutput failed(String... args) {
        CliOutput o = of(args);
        assertThat(o.code()).as("%s: %s%s", List.of(args), o.out(), o.err()).isNotZero();
        return o;
    }

    /**
     * Standard error's lines, without the note of the Flink configuration a run reads (printed once
     * per process, so beside the first command's output only).
     */
    public List<String> errLines() {
        return err.strip().lines().filter(l -> !l.startsWith("flink configuration: ")).toList();
    }
}
