package org.flinkss.runtime.table.delta;

import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import io.delta.kernel.Snapshot;
import io.delta.kernel.data.Row;
import io.delta.kernel.types.StructType;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A Delta table's {@code CHECK} and {@code NOT NULL} constraints, written as Delta writes them (the
 * protocol's "CHECK Constraints" and "Column Invariants"): a {@code CHECK} constraint is the table
 * property {@code delta.constraints.<name>} holding its SQL expression, with the writer feature
 * {@code checkConstraints}; {@code NOT NULL} is a column's {@code nullable: false}, with the writer
 * feature {@code invariants}. A legacy protocol is upgraded to the lowest writer version that has
 * the feature (3 for {@code CHECK}, 2 for {@code NOT NULL}), as delta-spark does; one of table
 * features gets the feature in its list.
 *
 * <p>Each change is one commit named as delta-spark names it ({@code ADD CONSTRAINT}, {@code DROP
 * CONSTRAINT}, {@code CHANGE COLUMN}), written by {@link FeedLog}: Delta Kernel 4.0.0 refuses to
 * write a table with {@code delta.constraints.*} ({@code checkConstraints} has no write support in
 * it), so every later write of such a table goes through {@link FeedLog} too. The rows are not read
 * here: the caller checks them against the constraint on the version it passes, and the commit is
 * made only if the table is still at that version. Enforcing the constraints on writes is the
 * writers' job (Kernel does not see rows); Spark enforces them on its own.
 */
public final class DeltaConstraints {

    /** The table property prefix of a {@code CHECK} constraint. */
    public static final String PREFIX = "delta.constraints.";

    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private final String path;
    private final SnapshotReader snapshots;
    private final FeedLog log;

    DeltaConstraints(String path, SnapshotReader snapshots, FeedLog log) {
        this.path = path;
        this.snapshots = snapshots;
        this.log = log;
    }

    /** The {@code CHECK} constraints among a table's properties: name to expression, by name. */
    public static Map<String, String> checks(Map<String, String> properties) {
        Map<String, String> checks = new TreeMap<>();
        properties.forEach(
                (key, value) -> {
                    if (key.startsWith(PREFIX)) {
                        checks.put(key.substring(PREFIX.length()), value);
                    }
                });
        return checks;
    }

    /** The columns of {@code rowType} that are {@code NOT NULL}, in order. */
    public static List<String> notNullColumns(RowType rowType) {
        List<String> columns = new ArrayList<>();
        for (RowType.RowField field : rowType.getFields()) {
            if (!field.getType().isNullable()) {
                columns.add(field.getName());
            }
        }
        return columns;
    }

    /**
     * Whether a writer of {@code written} may write a table of {@code existing} columns: the same
     * names and types, where the table may hold a column {@code NOT NULL} that the writer has
     * nullable (the writer checks its rows against it).
     */
    public static boolean writableWith(RowType existing, RowType written) {
        return existing.equals(written) || nullable(existing).equals(nullable(written));
    }

    private static RowType nullable(RowType rowType) {
        List<RowType.RowField> fields = new ArrayList<>();
        for (RowType.RowField field : rowType.getFields()) {
            fields.add(new RowType.RowField(field.getName(), field.getType().copy(true)));
        }
        return new RowType(rowType.isNullable(), fields);
    }

    /** The table's {@code CHECK} constraints as of its current version (see {@link #checks}). */
    public Map<String, String> checks() {
        return checks(KernelInternals.properties(snapshots.latest()));
    }

    /**
     * Adds the {@code CHECK} constraint {@code name} (Delta's {@code ALTER TABLE ... ADD CONSTRAINT
     * name CHECK (expression)}), in one {@code ADD CONSTRAINT} commit. Delta keeps names in lower
     * case.
     *
     * @param checkedVersion the version whose rows the caller found to satisfy it
     * @return the new version
     * @throws IllegalArgumentException if the name is not a name or the table has it already
     * @throws TableChangedException if the table is no longer at {@code checkedVersion}
     */
    public long add(String name, String expression, long checkedVersion) {
        String key = key(name);
        if (expression.isBlank()) {
            throw new IllegalArgumentException("constraint '" + name + "' has no expression");
        }
        return log.writeOn(
                checkedVersion,
                (latest, now) -> {
                    Map<String, String> properties = properties(latest);
                    if (properties.containsKey(key)) {
                        throw new IllegalArgumentException(
                                "Delta table "
                                        + path
                                        + " already has the constraint '"
                                        + lower(name)
                                        + "' ("
                                        + properties.get(key)
                                        + "): drop it first (table constraint drop)");
                    }
                    properties.put(key, expression.strip());
                    Map<String, String> parameters = new LinkedHashMap<>();
                    parameters.put("name", lower(name));
                    parameters.put("expr", expression.strip());
                    return actions(
                            latest,
                            now,
                            "ADD CONSTRAINT",
                            parameters,
                            true,
                            latest.getSchema(),
                            properties);
                });
    }

    /**
     * Drops the {@code CHECK} constraint {@code name} ({@code ALTER TABLE ... DROP CONSTRAINT}), in
     * one {@code DROP CONSTRAINT} commit; the protocol stays as it is, as in Delta.
     *
     * @return the new version
     * @throws IllegalArgumentException if the table has no constraint of that name, naming it
     */
    public long drop(String name) {
        String key = key(name);
        return log.writeNext(
                "dropping constraint " + lower(name),
                (latest, now) -> {
                    Map<String, String> properties = properties(latest);
                    String expression = properties.remove(key);
                    if (expression == null) {
                        throw new IllegalArgumentException(
                                "Delta table "
                                        + path
                                        + " has no constraint '"
                                        + lower(name)
                                        + "'; its constraints: "
                                        + checks(properties(latest)).keySet());
                    }
                    Map<String, String> parameters = new LinkedHashMap<>();
                    parameters.put("name", lower(name));
                    parameters.put("expr", expression);
                    return actions(
                            latest,
                            now,
                            "DROP CONSTRAINT",
                            parameters,
                            false,
                            latest.getSchema(),
                            properties);
                });
    }

    /**
     * Makes {@code column} {@code NOT NULL} ({@code ALTER TABLE ... ALTER COLUMN column SET NOT
     * NULL}), in one {@code CHANGE COLUMN} commit whose {@code metaData} holds the column with
     * {@code nullable: false}.
     *
     * @param checkedVersion the version whose rows the caller found to have no null in it
     * @return the new version
     * @throws IllegalArgumentException if the table has no such column
     * @throws TableChangedException if the table is no longer at {@code checkedVersion}
     */
    public long setNotNull(String column, long checkedVersion) {
        return log.writeOn(
                checkedVersion,
                (latest, now) -> {
                    RowType rowType = DeltaSchema.toFlink(latest.getSchema());
                    int at = rowType.getFieldNames().indexOf(column);
                    if (at < 0) {
                        throw new IllegalArgumentException(
                                "Delta table "
                                        + path
                                        + " has no column '"
                                        + column
                                        + "'; its columns: "
                                        + rowType.getFieldNames());
                    }
                    List<RowType.RowField> fields = new ArrayList<>(rowType.getFields());
                    LogicalType type = fields.get(at).getType().copy(false);
                    fields.set(at, new RowType.RowField(column, type));
                    Map<String, String> parameters = new LinkedHashMap<>();
                    parameters.put(
                            "column",
                            "{\"name\":\""
                                    + column
                                    + "\",\"type\":\""
                                    + latest.getSchema().get(column).getDataType()
                                    + "\",\"nullable\":false,\"metadata\":{}}");
                    return actions(
                            latest,
                            now,
                            "CHANGE COLUMN",
                            parameters,
                            false,
                            DeltaSchema.toDelta(new RowType(fields)),
                            properties(latest));
                });
    }

    private List<Row> actions(
            Snapshot latest,
            long now,
            String operation,
            Map<String, String> parameters,
            boolean checks,
            StructType schema,
            Map<String, String> properties) {
        List<Row> actions = new ArrayList<>();
        actions.add(
                KernelInternals.commitInfoAction(
                        now,
                        DeltaTable.ENGINE_INFO,
                        new OperationInfo(operation, parameters, Map.of()),
                        false));
        if (!operation.equals("DROP CONSTRAINT")) {
            KernelInternals.protocolWith(latest, checks).ifPresent(actions::add);
        }
        actions.add(KernelInternals.metadataAction(latest, schema, properties, now));
        return actions;
    }

    private static Map<String, String> properties(Snapshot latest) {
        return new HashMap<>(KernelInternals.properties(latest));
    }

    private static String key(String name) {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "constraint name '"
                            + name
                            + "' is not a name: letters, digits and _, not starting with a digit");
        }
        return PREFIX + lower(name);
    }

    private static String lower(String name) {
        return name.toLowerCase(Locale.ROOT);
    }
}
