package org.flinkss.course.state;

import org.flinkss.course.queries.Api;
import org.flinkss.course.queries.QueryCatalog;
import org.flinkss.course.queries.WindowQuery;
import org.flinkss.runtime.state.KeyedStateView;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * How {@code state show} reads each course query's keyed state: the views of its DataStream
 * operators (their uids and the rows their state makes), and the uids that name the other operators
 * of its checkpoint. A query run with {@code --api table} (Flink SQL's own operators) has no views:
 * its checkpoint's metadata still gives its operators and their sizes.
 */
public final class StateViews {

    private StateViews() {}

    /** The keyed views of the query's DataStream version; empty where none is written yet. */
    public static List<KeyedStateView<?>> of(QueryCatalog entry) {
        switch (entry) {
            case WIN5:
                return List.of(new WindowStateView(WindowQuery.win5(Api.DATASTREAM)));
            case SLIDING:
                return List.of(new WindowStateView(WindowQuery.sliding(Api.DATASTREAM)));
            case SESSIONS:
                return List.of(new WindowStateView(WindowQuery.sessions(Api.DATASTREAM)));
            case GOLD:
                return List.of(new WindowStateView(WindowQuery.gold(Api.DATASTREAM)));
            case DEDUP:
            case SILVER:
                return List.of(new DedupStateView(entry.queryName()));
            case VIEW_THEN_BUY:
            case VIEW_THEN_BUY_OUTER:
                return List.of(new ViewThenBuyStateView(entry.queryName()));
            default:
                return List.of();
        }
    }

    /** The names of the queries whose keyed state {@link #of} reads, in the catalog's order. */
    public static List<String> readable() {
        Set<String> names = new LinkedHashSet<>();
        for (QueryCatalog entry : QueryCatalog.values()) {
            if (!of(entry).isEmpty()) {
                names.add(entry.queryName());
            }
        }
        return List.copyOf(names);
    }

    /**
     * The uids the query's operators may carry (stateful or not), to name them in a checkpoint's
     * metadata, which knows only their hashes.
     */
    public static List<String> uids(QueryCatalog entry) {
        String q = entry.queryName();
        List<String> uids = new ArrayList<>();
        for (KeyedStateView<?> view : of(entry)) {
            uids.add(view.uid());
        }
        for (String prefix :
                List.of(
                        "events-",
                        "late-rows-",
                        "combine-window-rows-",
                        "valid-amounts-",
                        "views-and-buys-",
                        "views-",
                        "buys-",
                        "join-",
                        "joined-")) {
            uids.add(prefix + q);
        }
        // Sources are named by the table or folder they read: any of the catalog's.
        Set<String> tables = new TreeSet<>(List.of("events"));
        for (QueryCatalog any : QueryCatalog.values()) {
            tables.addAll(any.tables());
        }
        for (String table : tables) {
            uids.add("source-" + table);
        }
        for (String table : entry.tables()) {
            for (String prefix : List.of("rows-", "sink-", "Sink Committer: sink-")) {
                uids.add(prefix + table);
            }
        }
        return uids;
    }

    /**
     * Whether a checkpoint whose stateful operators describe themselves as {@code stateful} (its
     * identity) was made by the query's Table API version.
     */
    public static boolean madeByTableApi(List<String> stateful) {
        String table = "[" + Api.TABLE.text() + "]";
        return stateful.stream().anyMatch(s -> s.contains(table));
    }
}
