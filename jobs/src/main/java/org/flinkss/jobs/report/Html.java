package org.flinkss.jobs.report;

/**
 * Escaping for the report: everything that comes from data (query and table names, keys, file
 * names, quarantined lines) goes through it, as text or as JSON inside the page.
 */
final class Html {

    private Html() {}

    /** {@code s} as HTML text or as an attribute's value. */
    static String escape(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    /**
     * JSON text made safe inside a {@code <script>} element: no {@code <} (so no {@code </script>}
     * or {@code <!--} can end or change the element), no {@code >} or {@code &}, and no line or
     * paragraph separator, each written as its {@code \\u} escape, which JSON reads back as the
     * same character.
     */
    static String scriptJson(String json) {
        return json.replace("<", "\\u003c")
                .replace(">", "\\u003e")
                .replace("&", "\\u0026")
                .replace("\u2028", "\\u2028")
                .replace("\u2029", "\\u2029");
    }
}
