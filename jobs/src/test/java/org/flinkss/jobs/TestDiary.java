package org.flinkss.jobs;

import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What a test that runs child processes went through, for the reader of a failed run: its steps
 * with the seconds since it started ({@link #note}), printed after every test, and the output files
 * of its children ({@link #output}), printed after a failure. Registered per test on an instance
 * field: {@code @RegisterExtension final TestDiary diary = new TestDiary();}.
 */
public final class TestDiary implements AfterTestExecutionCallback {

    private final long start = System.nanoTime();
    private final List<String> timeline = new ArrayList<>();
    private final List<Path> outputs = new ArrayList<>();

    /** Records a step, with the seconds since the test started. */
    public void note(String event) {
        timeline.add(String.format("%6.1f s  %s", (System.nanoTime() - start) / 1e9, event));
    }

    /** Records a child's output file, printed if the test fails; returns it. */
    public Path output(Path file) {
        outputs.add(file);
        return file;
    }

    /** The children's output files, for code that adds its children's files itself. */
    public List<Path> outputs() {
        return outputs;
    }

    @Override
    public void afterTestExecution(ExtensionContext context) throws IOException {
        if (context.getExecutionException().isPresent()) {
            for (Path output : outputs) {
                System.out.println("===== " + output.getFileName() + " =====");
                System.out.println(Files.exists(output) ? Files.readString(output) : "(no output)");
            }
        }
        System.out.println(context.getRequiredTestClass().getSimpleName() + " timeline:");
        timeline.forEach(line -> System.out.println("  " + line));
    }
}
