package org.flinkss.jobs.docs;

import org.flinkss.testutils.ProjectScripts;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The fenced blocks of the project's documentation (the README and {@code docs/*.md}), each with
 * what the comment before it says it is:
 *
 * <ul>
 *   <li>{@code <!-- doc-test: run -->}: commands that {@link ReadmeCommandsITCase} runs, in order,
 *       each page on a fresh base;
 *   <li>{@code <!-- doc-test: ports (...) -->}: commands that start servers on fixed ports, run by
 *       {@link DocPortsCommandsITCase};
 *   <li>{@code <!-- doc-test: sample (...) -->}: output or a file's excerpt, nothing to run;
 *   <li>{@code <!-- doc-test: build (...) -->}: Maven itself, which CI runs.
 * </ul>
 *
 * The comment is the last non-blank line before the opening fence; what follows the kind is a note
 * for the reader. A block without one is an error ({@link DocsTest}).
 */
final class DocBlocks {

    /** What a block is, as its comment says. */
    enum Kind {
        RUN,
        PORTS,
        SAMPLE,
        BUILD
    }

    /** A fenced block: its page, the line of its opening fence (1-based), kind and lines. */
    record Block(Path page, int line, Kind kind, List<String> lines) {
        String where() {
            return ProjectScripts.ROOT.relativize(page) + ":" + line;
        }
    }

    /** A fenced block whose comment is missing or unknown. */
    record Unmarked(Path page, int line, String before) {}

    private static final Pattern FENCE = Pattern.compile("^\\s*```");
    private static final Pattern MARKER =
            Pattern.compile("^\\s*<!-- doc-test: (run|ports|sample|build)\\b.*-->\\s*$");

    private DocBlocks() {}

    /**
     * The documentation's pages in reading order: the README, then the pages of {@code docs/} in
     * the order the manual's index ({@code docs/README.md}) links them, then any page it does not
     * link, by name.
     */
    static List<Path> pages() {
        Path root = ProjectScripts.ROOT;
        Path docs = root.resolve("docs");
        Set<Path> ordered = new LinkedHashSet<>();
        ordered.add(root.resolve("README.md"));
        Path index = docs.resolve("README.md");
        ordered.add(index);
        for (String target : DocLinks.targets(index)) {
            Path page = docs.resolve(target.split("#", 2)[0]).normalize();
            if (page.getParent().equals(docs)
                    && page.toString().endsWith(".md")
                    && Files.isRegularFile(page)) {
                ordered.add(page);
            }
        }
        try (Stream<Path> all = Files.list(docs)) {
            all.filter(p -> p.toString().endsWith(".md")).sorted().forEach(ordered::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return List.copyOf(ordered);
    }

    /** Every fenced block of {@code page}; fails on a block that is never closed. */
    static List<Block> blocks(Path page) {
        List<Block> blocks = new ArrayList<>();
        scan(page, blocks, new ArrayList<>());
        return blocks;
    }

    /** The blocks of {@code page} whose comment is missing or not one of the kinds. */
    static List<Unmarked> unmarked(Path page) {
        List<Unmarked> unmarked = new ArrayList<>();
        scan(page, new ArrayList<>(), unmarked);
        return unmarked;
    }

    /** The blocks of every page ({@link #pages}) of one kind, in reading order. */
    static List<Block> all(Kind kind) {
        List<Block> found = new ArrayList<>();
        for (Path page : pages()) {
            for (Block block : blocks(page)) {
                if (block.kind() == kind) {
                    found.add(block);
                }
            }
        }
        return found;
    }

    private static void scan(Path page, List<Block> blocks, List<Unmarked> unmarked) {
        List<String> text = read(page);
        for (int i = 0; i < text.size(); i++) {
            if (!FENCE.matcher(text.get(i)).find()) {
                continue;
            }
            int open = i;
            List<String> lines = new ArrayList<>();
            for (i++; ; i++) {
                if (i == text.size()) {
                    throw new AssertionError(
                            "the block at "
                                    + ProjectScripts.ROOT.relativize(page)
                                    + ":"
                                    + (open + 1)
                                    + " is never closed with ```");
                }
                if (text.get(i).strip().equals("```")) {
                    break;
                }
                lines.add(text.get(i));
            }
            String before = "";
            for (int j = open - 1; j >= 0; j--) {
                if (!text.get(j).isBlank()) {
                    before = text.get(j);
                    break;
                }
            }
            Matcher marker = MARKER.matcher(before);
            if (marker.matches()) {
                blocks.add(
                        new Block(
                                page,
                                open + 1,
                                Kind.valueOf(marker.group(1).toUpperCase()),
                                stripIndent(lines, text.get(open))));
            } else {
                unmarked.add(new Unmarked(page, open + 1, before.strip()));
            }
        }
    }

    /** A block inside a list item is indented as its fence is: the commands are not. */
    private static List<String> stripIndent(List<String> lines, String fence) {
        int indent = fence.length() - fence.stripLeading().length();
        List<String> stripped = new ArrayList<>();
        for (String line : lines) {
            int cut = 0;
            while (cut < indent && cut < line.length() && line.charAt(cut) == ' ') {
                cut++;
            }
            stripped.add(line.substring(cut));
        }
        return stripped;
    }

    static List<String> read(Path page) {
        try {
            return Files.readAllLines(page, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + page, e);
        }
    }
}
