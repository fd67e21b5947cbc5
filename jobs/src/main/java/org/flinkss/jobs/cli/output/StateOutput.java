package org.flinkss.jobs.cli.output;

import org.apache.flink.core.fs.Path;

import org.flinkss.course.queries.QueryCatalog;
import org.flinkss.course.state.StateViews;
import org.flinkss.runtime.ops.QueryCheckpoint;
import org.flinkss.runtime.state.KeyedStateView;
import org.flinkss.runtime.state.OperatorState;
import org.flinkss.runtime.state.QueryState;
import org.flinkss.runtime.state.StatePoint;
import org.flinkss.runtime.table.RowValues;

import javax.annotation.Nullable;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What {@code state summary|show|export <query>} print: the restore point read, then its operators
 * (from the metadata) or a keyed operator's state as rows (through the course's views).
 */
public final class StateOutput {

    private final String query;
    private final QueryState state;
    private final StatePoint point;
    private final boolean nextRun;
    private final List<KeyedStateView<?>> views;
    private final List<String> uids;

    /** Why the query has no views, when it has none; null when it has. */
    @Nullable private final String noViews;

    private StateOutput(
            String query,
            QueryState state,
            StatePoint point,
            boolean nextRun,
            List<KeyedStateView<?>> views,
            List<String> uids,
            @Nullable String noViews) {
        this.query = query;
        this.state = state;
        this.point = point;
        this.nextRun = nextRun;
        this.views = views;
        this.uids = uids;
        this.noViews = noViews;
    }

    /**
     * The state of query {@code name} under {@code base}: of batch {@code batch}, or the one the
     * next run restores.
     */
    public static StateOutput of(
            Path base, String name, Optional<QueryCatalog> catalog, @Nullable Long batch) {
        QueryCheckpoint checkpoint = QueryCheckpoint.of(base, name); // refuses a path as a name
        QueryState state = QueryState.of(base, name);
        StatePoint point = state.point(batch);
        List<String> stateful = checkpoint.status().stateful();
        List<KeyedStateView<?>> views = List.of();
        List<String> uids = List.of();
        String noViews;
        if (catalog.isEmpty()) {
            noViews =
                    "query '"
                            + name
                            + "' is a user's query (sql --file, run --jar): its operators' rows"
                            + " cannot be read without their state descriptors";
        } else if (StateViews.madeByTableApi(stateful)) {
            uids = StateViews.uids(catalog.get());
            noViews =
                    "query '"
                            + name
                            + "' ran with --api table: its operators are Flink SQL's, whose rows"
                            + " cannot be read here (the --api datastream version's can)";
        } else {
            views = StateViews.of(catalog.get());
            uids = StateViews.uids(catalog.get());
            noViews =
                    !views.isEmpty()
                            ? null
                            : stateful.isEmpty()
                                    ? "query '"
                                            + name
                                            + "' has no stateful operator: what it keeps is its"
                                            + " sources' and sinks' progress"
                                    : "the rows of the operators of query '"
                                            + name
                                            + "' are not readable yet (those of "
                                            + String.join(", ", StateViews.readable())
                                            + " are)";
        }
        return new StateOutput(name, state, point, batch == null, views, uids, noViews);
    }

    /** The restore point read, and each operator with state. */
    public void summary(PrintStream out) {
        out.println(header());
        List<List<Object>> rows = new ArrayList<>();
        Set<String> shown = new HashSet<>();
        List<OperatorState> operators = state.operators(point, uids);
        for (KeyedStateView<?> view : views) {
            List<List<Object>> state = this.state.rows(point, view);
            long keys = state.stream().map(r -> r.get(view.keyColumn())).distinct().count();
            long bytes =
                    operators.stream()
                            .filter(o -> view.uid().equals(o.uid()))
                            .mapToLong(OperatorState::bytes)
                            .sum();
            shown.add(view.uid());
            rows.add(
                    Arrays.asList(
                            view.uid(),
                            view.name(),
                            view.kind(),
                            String.join(" ", view.stateNames()),
                            keys,
                            (long) state.size(),
                            bytes));
        }
        for (OperatorState op : operators) {
            String uid = op.uid() == null ? op.operatorId() : op.uid();
            if (shown.add(uid)) {
                rows.add(
                        Arrays.asList(
                                uid,
                                "",
                                op.keyed() ? "keyed" : "operator state",
                                "",
                                "",
                                "",
                                op.bytes()));
            }
        }
        out.print(
                RowValues.grid(
                        List.of("uid", "name", "kind", "states", "keys", "rows", "bytes"), rows));
        if (noViews != null) {
            out.println(
                    "note: "
                            + noViews
                            + "; shown are its operators and their state sizes from the"
                            + " restore point's metadata");
        }
    }

    /** Each keyed operator's rows (or the one named), the first {@code limit} of each. */
    public void show(PrintStream out, @Nullable String operator, int limit) {
        List<KeyedStateView<?>> chosen = chosen(operator, "show");
        out.println(header());
        for (KeyedStateView<?> view : chosen) {
            List<List<Object>> rows = state.rows(point, view);
            out.println(
                    "operator "
                            + view.uid()
                            + " ("
                            + view.kind()
                            + "): "
                            + rows.size()
                            + " row"
                            + (rows.size() == 1 ? "" : "s"));
            out.print(
                    RowValues.grid(view.columns(), rows.subList(0, Math.min(limit, rows.size()))));
            if (rows.size() > limit) {
                out.println("only showing top " + limit + " of " + rows.size() + " rows");
            }
        }
    }

    /** One keyed operator's rows, all of them, sorted, as CSV with one header line. */
    public void export(PrintStream out, @Nullable String operator) {
        List<KeyedStateView<?>> chosen = chosen(operator, "export");
        if (chosen.size() > 1) {
            throw new IllegalArgumentException(
                    "query '"
                            + query
                            + "' has several keyed operators: name one with --operator ("
                            + uidsOf(chosen)
                            + ")");
        }
        KeyedStateView<?> view = chosen.get(0);
        TablePrinter.csv(out, view.columns(), state.rows(point, view));
    }

    private List<KeyedStateView<?>> chosen(@Nullable String operator, String command) {
        if (noViews != null) {
            throw new IllegalArgumentException(
                    noViews
                            + "; 'state summary "
                            + query
                            + "' shows its operators and their state sizes");
        }
        if (operator == null) {
            return views;
        }
        List<KeyedStateView<?>> named =
                views.stream().filter(v -> v.uid().equals(operator)).toList();
        if (named.isEmpty()) {
            throw new IllegalArgumentException(
                    "state "
                            + command
                            + ": query '"
                            + query
                            + "' has no keyed operator '"
                            + operator
                            + "': its operators are "
                            + uidsOf(views));
        }
        return named;
    }

    private static String uidsOf(List<KeyedStateView<?>> views) {
        return views.stream().map(KeyedStateView::uid).collect(Collectors.joining(", "));
    }

    private String header() {
        return "query "
                + query
                + ": "
                + point.describe()
                + (nextRun ? ", the restore point its next run restores" : "");
    }
}
