package org.flinkss.runtime.runner;

import org.flinkss.runtime.progress.SourcePlan;
import org.flinkss.runtime.source.impl.SourcePreview;
import org.flinkss.runtime.state.RestoredOperators;

import java.util.ArrayList;
import java.util.List;

/** What {@link Preflight} found, as the lines {@code run --dry-run} prints. */
public final class PreflightReport {

    private final String query;
    private final String checkpoint;
    private final List<String> refusals = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private final List<SourcePreview.Preview> sources = new ArrayList<>();
    private final List<RestoredOperators.Operator> operators = new ArrayList<>();
    private String restorePoint = "none: a first run, from the start of every source";

    PreflightReport(String query, String checkpoint) {
        this.query = query;
        this.checkpoint = checkpoint;
    }

    void refuse(String why) {
        refusals.add(why);
    }

    void note(String note) {
        notes.add(note);
    }

    void restorePoint(String described) {
        restorePoint = described;
    }

    void operators(List<RestoredOperators.Operator> found) {
        operators.addAll(found);
    }

    void source(SourcePreview.Preview preview) {
        sources.add(preview);
    }

    /** The report, a line each; the first says that nothing ran. */
    public List<String> lines() {
        List<String> lines = new ArrayList<>();
        lines.add(query + ": dry run; nothing was run or written.");
        lines.add("  checkpoint: " + checkpoint);
        lines.add("  restore point: " + restorePoint);
        for (String note : notes) {
            lines.add("  note: " + note);
        }
        boolean unmapped =
                operators.stream().anyMatch(o -> o.fate() == RestoredOperators.Fate.NO_OPERATOR);
        if (refusals.isEmpty()) {
            lines.add(
                    unmapped
                            ? "  query: the checkpoint serves this query, but Flink would refuse"
                                    + " state below that it has no operator for"
                            : "  query: the checkpoint serves this query (or is new): the run"
                                    + " would go on");
        }
        for (String why : refusals) {
            lines.add("  refused: " + why);
        }
        for (SourcePreview.Preview source : sources) {
            lines.addAll(describe(source));
        }
        if (!operators.isEmpty()) {
            lines.add("  state in the restore point:");
        }
        for (RestoredOperators.Operator op : operators) {
            lines.add(
                    "    "
                            + (op.fate() == RestoredOperators.Fate.KEPT
                                    ? "kept"
                                    : "refused (no operator of id "
                                            + op.id()
                                            + " in this query: Flink would not restore, and the"
                                            + " run would fail; 'reset "
                                            + query
                                            + "' starts over)")
                            + ": "
                            + op.name()
                            + (op.keyed() ? ", keyed" : "")
                            + ", "
                            + op.bytes()
                            + " bytes");
        }
        return lines;
    }

    private static List<String> describe(SourcePreview.Preview source) {
        List<String> lines = new ArrayList<>();
        String head = "  source '" + source.source() + "'";
        if (source.unfinished() != null) {
            SourcePreview.Unfinished u = source.unfinished();
            lines.add(
                    head
                            + ": batch "
                            + u.batchId()
                            + " was left unfinished ("
                            + u.splits()
                            + " splits, "
                            + u.unread()
                            + " not yet read): read again first, skipped by every table that"
                            + " committed it");
        }
        if (source.nextSplits().isEmpty()) {
            lines.add(
                    head
                            + ": nothing new to read (batch "
                            + source.nextBatchId()
                            + " would be"
                            + " the next)");
            return lines;
        }
        StringBuilder next =
                new StringBuilder(head)
                        .append(": next batch ")
                        .append(source.nextBatchId())
                        .append(" reads ")
                        .append(String.join(", ", source.nextSplits()));
        if (source.moreSplits() > 0) {
            next.append(" and ").append(source.moreSplits()).append(" more");
        }
        lines.add(next.toString());
        source.backlog().ifPresent(b -> lines.add("    " + backlog(b, source.limit())));
        return lines;
    }

    private static String backlog(SourcePlan.Backlog b, String limit) {
        List<String> parts = new ArrayList<>();
        parts.add(b.batches() + " batch" + (b.batches() == 1 ? "" : "es"));
        if (b.files() >= 0) {
            parts.add(b.files() + " file" + (b.files() == 1 ? "" : "s"));
        }
        if (b.bytes() >= 0) {
            parts.add(b.bytes() + " bytes");
        }
        if (b.offsets() >= 0) {
            parts.add(b.offsets() + " offsets");
        }
        if (!b.range().isEmpty()) {
            parts.add(b.range());
        }
        return "up to what is there now: "
                + String.join(", ", parts)
                + (limit.isEmpty() ? "" : " (limits: " + limit + ")");
    }
}
