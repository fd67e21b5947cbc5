package org.flinkss.runtime.table.delta;

import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import io.delta.kernel.Snapshot;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a commit with a {@code metaData} action changed of the table's schema and constraints, as
 * {@code table history} shows it: {@code schema: +country STRING} (schema evolution), {@code
 * constraint +early_id} ({@code ADD CONSTRAINT}), {@code NOT NULL +event_id} ({@code CHANGE
 * COLUMN}); empty when it changed neither (a property, a protocol).
 */
final class SchemaChange {

    private SchemaChange() {}

    /** The change from {@code before} (the version before the commit) to {@code after}. */
    static String between(Snapshot before, Snapshot after) {
        RowType was = DeltaSchema.toFlink(before.getSchema());
        RowType is = DeltaSchema.toFlink(after.getSchema());
        List<String> columns = new ArrayList<>();
        List<String> notNull = new ArrayList<>();
        for (RowType.RowField field : is.getFields()) {
            int at = was.getFieldNames().indexOf(field.getName());
            LogicalType type = field.getType();
            if (at < 0) {
                columns.add("+" + field.getName() + " " + type.copy(true).asSummaryString());
                continue;
            }
            LogicalType old = was.getTypeAt(at);
            if (!old.copy(true).equals(type.copy(true))) {
                columns.add(
                        field.getName()
                                + " "
                                + old.copy(true).asSummaryString()
                                + " -> "
                                + type.copy(true).asSummaryString());
            }
            if (old.isNullable() != type.isNullable()) {
                notNull.add((type.isNullable() ? "-" : "+") + field.getName());
            }
        }
        for (String name : was.getFieldNames()) {
            if (!is.getFieldNames().contains(name)) {
                columns.add("-" + name);
            }
        }
        List<String> constraints = new ArrayList<>();
        Map<String, String> checksWere =
                DeltaConstraints.checks(KernelInternals.properties(before));
        Map<String, String> checks = DeltaConstraints.checks(KernelInternals.properties(after));
        checks.forEach(
                (name, expression) -> {
                    String old = checksWere.get(name);
                    if (!Objects.equals(old, expression)) {
                        constraints.add((old == null ? "+" : "~") + name);
                    }
                });
        checksWere.keySet().stream()
                .filter(name -> !checks.containsKey(name))
                .forEach(name -> constraints.add("-" + name));
        List<String> parts = new ArrayList<>();
        if (!columns.isEmpty()) {
            parts.add("schema: " + String.join(", ", columns));
        }
        if (!notNull.isEmpty()) {
            parts.add("NOT NULL " + String.join(", ", notNull));
        }
        if (!constraints.isEmpty()) {
            parts.add("constraint " + String.join(", ", constraints));
        }
        return String.join("; ", parts);
    }
}
