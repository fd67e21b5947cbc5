package org.flinkss.jobs.docs;

import org.junit.jupiter.api.Test;

import org.flinkss.testutils.ProjectScripts;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The documentation holds together: the README stays a front door, every fenced block says what it
 * is (so that the blocks of commands are run by a test, {@link DocBlocks}), every relative link and
 * anchor leads somewhere in the repository, and every page of the manual is in its index.
 */
class DocsTest {

    private static final Path ROOT = ProjectScripts.ROOT;
    private static final int README_MAX_LINES = 300;

    @Test
    void theReadmeFitsOnAFewScreens() {
        assertThat(DocBlocks.read(ROOT.resolve("README.md")))
                .as("README.md is the front door: the rest belongs in a page of docs/")
                .hasSizeLessThanOrEqualTo(README_MAX_LINES);
    }

    @Test
    void everyFencedBlockSaysWhatItIs() {
        List<String> unmarked = new ArrayList<>();
        for (Path page : DocBlocks.pages()) {
            for (DocBlocks.Unmarked u : DocBlocks.unmarked(page)) {
                unmarked.add(
                        ROOT.relativize(u.page())
                                + ":"
                                + u.line()
                                + " (the line before it: '"
                                + u.before()
                                + "')");
            }
        }
        assertThat(unmarked)
                .as(
                        "fenced blocks without a '<!-- doc-test: run|ports|sample|build -->' line"
                                + " before them (see DocBlocks)")
                .isEmpty();
    }

    @Test
    void thereAreCommandsToRunAndEachRunBlockParses() {
        List<DocBlocks.Block> run = DocBlocks.all(DocBlocks.Kind.RUN);
        assertThat(run).as("run blocks").isNotEmpty();
        int commands = 0;
        for (DocBlocks.Block block : run) {
            commands += DocCommands.of(block).size();
        }
        assertThat(commands)
                .as("commands of the run blocks (about 60 when this test was written)")
                .isGreaterThanOrEqualTo(ReadmeCommandsITCase.AT_LEAST);
        assertThat(DocBlocks.all(DocBlocks.Kind.PORTS)).as("ports blocks").isNotEmpty();
    }

    @Test
    void everyRelativeLinkAndAnchorResolves() {
        List<Path> pages = new ArrayList<>(DocBlocks.pages());
        for (String other :
                List.of("CONTRIBUTING.md", "docker/README.md", "spark-diff/README.md")) {
            if (Files.isRegularFile(ROOT.resolve(other))) {
                pages.add(ROOT.resolve(other));
            }
        }
        List<String> broken = new ArrayList<>();
        for (Path page : pages) {
            for (String target : DocLinks.targets(page)) {
                String problem = problem(page, target);
                if (problem != null) {
                    broken.add(ROOT.relativize(page) + ": (" + target + ") " + problem);
                }
            }
        }
        assertThat(broken).as("links that lead nowhere").isEmpty();
    }

    @Test
    void everyPageOfTheManualIsInItsIndex() {
        Path docs = ROOT.resolve("docs");
        List<String> linked = DocLinks.targets(docs.resolve("README.md"));
        List<String> missing = new ArrayList<>();
        for (Path page : DocBlocks.pages()) {
            String name = page.getFileName().toString();
            if (page.getParent().equals(docs)
                    && !name.equals("README.md")
                    && linked.stream().noneMatch(t -> t.split("#", 2)[0].equals(name))) {
                missing.add(name);
            }
        }
        assertThat(missing).as("pages of docs/ that docs/README.md does not link").isEmpty();
    }

    @Test
    void noPageNamesAPathOutsideTheRepository() {
        List<String> outside = new ArrayList<>();
        for (Path page : DocBlocks.pages()) {
            List<String> lines = DocBlocks.read(page);
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).contains("../shared/")) {
                    outside.add(ROOT.relativize(page) + ":" + (i + 1) + ": " + lines.get(i));
                }
            }
        }
        assertThat(outside).as("paths outside the repository").isEmpty();
    }

    @Test
    void anchorsAreGitHubs() {
        assertThat(DocLinks.anchor("Schema change in the source (topic 11.14)"))
                .isEqualTo("schema-change-in-the-source-topic-1114");
        assertThat(DocLinks.anchor("`scripts/flinkss`: the same jar, started for the run"))
                .isEqualTo("scriptsflinkss-the-same-jar-started-for-the-run");
        assertThat(DocLinks.anchor("Help, versions and exit codes"))
                .isEqualTo("help-versions-and-exit-codes");
    }

    /** Why a link of {@code page} leads nowhere, or null when it resolves. */
    private static String problem(Path page, String target) {
        if (target.matches("^[a-z][a-z0-9+.-]*:.*")) {
            return null; // http:, https:, mailto:
        }
        String[] parts = target.split("#", 2);
        Path file = parts[0].isEmpty() ? page : page.getParent().resolve(parts[0]).normalize();
        if (!file.startsWith(ROOT)) {
            return "is outside the repository";
        }
        if (!Files.exists(file)) {
            return "names no file";
        }
        if (parts.length == 2 && file.toString().endsWith(".md")) {
            if (!DocLinks.anchors(file).contains(parts[1])) {
                return "names no heading of " + ROOT.relativize(file);
            }
        }
        return null;
    }
}
