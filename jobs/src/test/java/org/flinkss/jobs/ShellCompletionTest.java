package org.flinkss.jobs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The completion script the build writes ({@code jobs/target/flinkss_completion}) completes the
 * command tree in a real bash: commands, subcommands, query names and options, for {@code flinkss}
 * and for {@code scripts/flinkss}.
 */
class ShellCompletionTest {

    @TempDir Path dir;

    @Test
    void theBuildWroteTheScriptOfTheWholeCommandTree() throws Exception {
        Path built = Path.of("target", "flinkss_completion");
        assertThat(built).as("written by the build (process-classes)").exists();
        assertThat(Files.readString(built, StandardCharsets.UTF_8))
                .isEqualTo(ShellCompletion.script());
    }

    @Test
    void bashCompletesCommandsSubcommandsQueriesAndOptions() throws Exception {
        assertThat(complete("flinkss", "ta")).containsExactly("table");
        assertThat(complete("flinkss", "la")).containsExactly("land-events", "land-customers");
        assertThat(complete("flinkss", "table", "s")).containsExactly("show");
        assertThat(complete("flinkss", "run", "vi")).contains("view-then-buy");
        assertThat(complete("flinkss", "run", "bronze", "--max-f"))
                .containsExactly("--max-files-per-trigger");
        assertThat(complete("flinkss", "report", "--o")).containsExactly("--out");
        // Registered for the command flinkss; bash looks a path's last part up too, so that
        // scripts/flinkss is completed the same way.
        assertThat(bash("complete -p flinkss"))
                .containsExactly("complete -o default -F _complete_flinkss flinkss");
    }

    /** What bash offers for the last word of {@code words}, with the script sourced. */
    private List<String> complete(String... words) throws Exception {
        String line = String.join(" ", words);
        return bash(
                "COMP_WORDS=("
                        + line
                        + ")\n"
                        + "COMP_CWORD="
                        + (words.length - 1)
                        + "\n"
                        + "COMP_LINE='"
                        + line
                        + "'\n"
                        + "COMP_POINT=${#COMP_LINE}\n"
                        + "_complete_flinkss\n"
                        + "printf '%s\\n' \"${COMPREPLY[@]}\"\n");
    }

    /**
     * The lines {@code commands} print in bash after sourcing the script (its stderr is left out:
     * outside a real completion, bash's compopt complains there).
     */
    private List<String> bash(String commands) throws Exception {
        Path script = dir.resolve("flinkss_completion");
        Files.writeString(script, ShellCompletion.script(), StandardCharsets.UTF_8);
        Process process =
                new ProcessBuilder("bash", "-c", "source '" + script + "'\n" + commands)
                        .redirectError(dir.resolve("bash.err").toFile())
                        .start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue())
                .as("bash: %s", Files.readString(dir.resolve("bash.err")))
                .isZero();
        return out.lines().map(String::strip).filter(s -> !s.isEmpty()).toList();
    }
}
