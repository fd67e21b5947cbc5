package org.flinkss.jobs.docs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.testutils.ProjectScripts;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * How the documentation's blocks are read ({@link DocBlocks}) and their commands split ({@link
 * DocCommands}): what {@link ReadmeCommandsITCase} runs is exactly what a page says, and a line it
 * could not run as written fails the build instead of being skipped.
 */
class DocCommandsTest {

    private static final Path PAGE = ProjectScripts.ROOT.resolve("docs/example.md");

    @TempDir Path dir;

    @Test
    void aLineOfTheJarIsItsArgumentsAndTheCommentAfterIt() {
        List<DocCommands.Command> commands =
                DocCommands.of(
                        block(
                                "J=\"java -jar jobs/target/flinkss-jobs.jar\"   # or"
                                        + " J=scripts/flinkss",
                                "# a comment line",
                                "",
                                "$J table count events_bronze      # 500",
                                "java -jar jobs/target/flinkss-jobs.jar run win5 --api table",
                                "scripts/flinkss progress win5"));

        assertThat(commands).hasSize(3).allMatch(c -> c instanceof DocCommands.Jar);
        DocCommands.Jar count = (DocCommands.Jar) commands.get(0);
        assertThat(count.args()).containsExactly("table", "count", "events_bronze");
        assertThat(count.comment()).isEqualTo("500");
        assertThat(count.where()).isEqualTo("docs/example.md:14");
        assertThat(((DocCommands.Jar) commands.get(1)).args())
                .containsExactly("run", "win5", "--api", "table");
        assertThat(((DocCommands.Jar) commands.get(2)).args()).containsExactly("progress", "win5");
    }

    @Test
    void aBackslashJoinsTheNextLineAndOtherLinesAreShellCommands() {
        List<DocCommands.Command> commands =
                DocCommands.of(
                        block(
                                "mkdir -p data/events/batch_9",
                                "$J run bronze \\",
                                "    --rescued-data   # kept"));

        assertThat(commands).hasSize(2);
        assertThat(commands.get(0))
                .isEqualTo(
                        new DocCommands.Shell(
                                "mkdir -p data/events/batch_9", "docs/example.md:11"));
        DocCommands.Jar run = (DocCommands.Jar) commands.get(1);
        assertThat(run.args()).containsExactly("run", "bronze", "--rescued-data");
        assertThat(run.comment()).isEqualTo("kept");
        assertThat(run.where()).isEqualTo("docs/example.md:12");
    }

    @Test
    void aLineThatCannotRunAsWrittenFailsNamingItsPlace() {
        assertThatThrownBy(() -> DocCommands.of(block("$J sql --file 'my query.sql'")))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("docs/example.md:11")
                .hasMessageContaining("quotes an argument");
        assertThatThrownBy(() -> DocCommands.of(block("$J land-events --batch 1 && $J run bronze")))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("quotes an argument or names a variable");
        assertThatThrownBy(() -> DocCommands.of(block("time $J run bronze")))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("runs the jar inside a shell command");
        assertThatThrownBy(() -> DocCommands.of(block("J=\"java -Xmx1g -jar other.jar\"")))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("sets J to something else");
    }

    @Test
    void aBlockIsWhatTheCommentBeforeItSaysAndOneWithoutItIsUnmarked() throws Exception {
        Path page = dir.resolve("page.md");
        Files.writeString(
                page,
                String.join(
                        "\n",
                        "# A page",
                        "",
                        "<!-- doc-test: run -->",
                        "```bash",
                        "$J run bronze",
                        "```",
                        "",
                        "- In a list:",
                        "",
                        "  <!-- doc-test: ports (S3Proxy on 9000) -->",
                        "  ```bash",
                        "  scripts/s3 start",
                        "  ```",
                        "",
                        "Output:",
                        "",
                        "```",
                        "500",
                        "```",
                        ""));

        List<DocBlocks.Block> blocks = DocBlocks.blocks(page);
        assertThat(blocks)
                .extracting(DocBlocks.Block::kind)
                .containsExactly(DocBlocks.Kind.RUN, DocBlocks.Kind.PORTS);
        assertThat(blocks.get(0).line()).isEqualTo(4);
        assertThat(blocks.get(1).lines())
                .as("a list item's block loses the indent of its fence")
                .containsExactly("scripts/s3 start");
        assertThat(DocBlocks.unmarked(page))
                .containsExactly(new DocBlocks.Unmarked(page, 17, "Output:"));
    }

    @Test
    void aBlockThatIsNeverClosedFails() throws Exception {
        Path page = dir.resolve("open.md");
        Files.writeString(page, "<!-- doc-test: run -->\n```bash\n$J run bronze\n");
        assertThatThrownBy(() -> DocBlocks.blocks(page))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("open.md:2 is never closed");
    }

    /** A run block of {@link #PAGE} whose opening fence is line 10. */
    private static DocBlocks.Block block(String... lines) {
        return new DocBlocks.Block(PAGE, 10, DocBlocks.Kind.RUN, List.of(lines));
    }
}
