package org.flinkss.jobs.docs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The links and headings of a Markdown page, read as GitHub renders them: link targets outside
 * fenced blocks and inline code, and the anchors GitHub gives headings.
 */
final class DocLinks {

    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern INLINE_CODE = Pattern.compile("`[^`]*`");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");

    private DocLinks() {}

    /** The targets of the page's Markdown links ({@code [text](target)}), in order. */
    static List<String> targets(Path page) {
        List<String> targets = new ArrayList<>();
        boolean inBlock = false;
        for (String line : DocBlocks.read(page)) {
            if (line.strip().startsWith("```")) {
                inBlock = !inBlock;
                continue;
            }
            if (inBlock) {
                continue;
            }
            // A link's text may be code ([`docker/README.md`](...)): drop code spans inside the
            // brackets only, so that their closing bracket stays.
            Matcher link = LINK.matcher(withoutCodeOutsideLinks(line));
            while (link.find()) {
                targets.add(link.group(1));
            }
        }
        return targets;
    }

    /** The anchors of the page's headings, as GitHub makes them. */
    static Set<String> anchors(Path page) {
        Set<String> anchors = new LinkedHashSet<>();
        boolean inBlock = false;
        for (String line : DocBlocks.read(page)) {
            if (line.strip().startsWith("```")) {
                inBlock = !inBlock;
                continue;
            }
            Matcher heading = HEADING.matcher(line);
            if (!inBlock && heading.matches()) {
                String anchor = anchor(heading.group(1));
                String unique = anchor;
                for (int n = 1; !anchors.add(unique); n++) {
                    unique = anchor + "-" + n;
                }
            }
        }
        return anchors;
    }

    /**
     * GitHub's anchor for a heading: lower case, every character but letters, digits, spaces,
     * hyphens and underscores dropped, spaces made hyphens.
     */
    static String anchor(String heading) {
        String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1");
        StringBuilder anchor = new StringBuilder();
        for (char c : text.toLowerCase(Locale.ROOT).toCharArray()) {
            if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                anchor.append(c);
            } else if (c == ' ') {
                anchor.append('-');
            }
        }
        return anchor.toString();
    }

    /** The line with inline code removed where it is not a link's text. */
    private static String withoutCodeOutsideLinks(String line) {
        Matcher code = INLINE_CODE.matcher(line);
        StringBuilder kept = new StringBuilder();
        int from = 0;
        while (code.find()) {
            boolean linkText =
                    code.start() > 0
                            && line.charAt(code.start() - 1) == '['
                            && line.startsWith("](", code.end());
            kept.append(line, from, code.start());
            kept.append(linkText ? code.group() : "");
            from = code.end();
        }
        return kept.append(line.substring(from)).toString();
    }
}
