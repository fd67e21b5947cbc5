package org.flinkss.course.event;

import org.apache.flink.table.types.logical.LogicalType;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.flinkss.runtime.PermanentFailure;
import org.flinkss.runtime.table.OpenColumns;

import java.io.Serializable;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Bronze's schema evolution ({@code run bronze --schema-evolution add-new-columns}, Auto Loader's
 * {@code addNewColumns}): the top-level fields of a line that are not event columns become columns
 * of {@code events_bronze}, in {@link ParsedEvent#columns}. A field the table has already (from an
 * earlier run) or that an earlier line read by this reader brought keeps that column's type; a new
 * one is typed by {@link OpenColumns#inferType}. A value of another type than its column's is a
 * type change: with a rescued data column it stays in {@code _rescued_data} (as Auto Loader rescues
 * it), without one the run fails at once ({@link PermanentFailure}) with one line naming the file,
 * the line, the field and both types.
 *
 * <p>Event columns keep bronze's rules (a value of the wrong type is null and the line is
 * quarantined, or rescued). A field whose name differs from a column's only by case is no new
 * column (Delta's names are case-insensitive): it is skipped, or rescued. A {@code null} value of a
 * field the table does not have adds no column: there is no type to infer from it.
 *
 * <p>One per reader subtask (it remembers the types its lines brought); not thread-safe.
 */
public final class NewColumns implements Serializable {

    private static final long serialVersionUID = 1L;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String table;
    private final boolean rescued;

    /** Column name -> type: the table's columns beyond the events', then those lines brought. */
    private final LinkedHashMap<String, LogicalType> known;

    /** Lower-case names of every column, to tell a column from a field differing by case. */
    private final Map<String, String> byLowerCase = new LinkedHashMap<>();

    /**
     * @param table the table, for errors
     * @param known the table's columns beyond the event columns, with their types
     * @param rescued whether values that do not fit go to {@code _rescued_data}
     */
    public NewColumns(String table, Map<String, LogicalType> known, boolean rescued) {
        this.table = table;
        this.rescued = rescued;
        this.known = new LinkedHashMap<>(known);
        for (String column : Event.COLUMNS) {
            byLowerCase.put(column.toLowerCase(Locale.ROOT), column);
        }
        known.keySet().forEach(c -> byLowerCase.put(c.toLowerCase(Locale.ROOT), c));
    }

    /**
     * Fills {@code record.columns} from the JSON object {@code json} it was read from, and takes
     * what became a column out of its rescued data.
     *
     * @throws PermanentFailure naming the file, line, field and both types, for a value of another
     *     type than its column's without a rescued data column
     */
    public void apply(ParsedEvent record, String json, String file, long line) {
        ObjectNode fields;
        try {
            JsonNode tree = JSON.readTree(json);
            if (!(tree instanceof ObjectNode)) {
                return;
            }
            fields = (ObjectNode) tree;
        } catch (JsonProcessingException e) {
            return; // a line that is not JSON is bronze's bad line, handled before
        }
        ObjectNode columns = OpenColumns.object();
        for (Iterator<Map.Entry<String, JsonNode>> it = fields.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            String name = field.getKey();
            JsonNode value = field.getValue();
            String column = byLowerCase.get(name.toLowerCase(Locale.ROOT));
            if (column != null && (!column.equals(name) || Event.COLUMNS.contains(name))) {
                continue; // an event column, or a column's name in another case
            }
            LogicalType type = known.get(name);
            if (type == null) {
                type = OpenColumns.inferType(value);
                if (type == null) {
                    continue;
                }
                known.put(name, type);
                byLowerCase.put(name.toLowerCase(Locale.ROOT), name);
            } else if (!OpenColumns.fits(value, type)) {
                if (rescued) {
                    continue; // stays in _rescued_data
                }
                throw new PermanentFailure(
                        file
                                + ":"
                                + line
                                + ": field '"
                                + name
                                + "' is "
                                + OpenColumns.name(type)
                                + " in "
                                + table
                                + " but "
                                + OpenColumns.name(OpenColumns.inferType(value))
                                + " here ("
                                + OpenColumns.text(value)
                                + "): a column's type does not change in place. Fix the file,"
                                + " or run with --rescued-data to keep such values in"
                                + " _rescued_data");
            }
            columns.set(name, value);
        }
        record.columns = columns.isEmpty() ? null : columns.toString();
        if (record.rescuedData != null && !columns.isEmpty()) {
            record.rescuedData = withoutColumns(record.rescuedData, columns);
        }
    }

    /** The rescued object without the fields that became columns; null if nothing else is left. */
    private static String withoutColumns(String rescuedData, ObjectNode columns) {
        ObjectNode left = OpenColumns.parse(rescuedData);
        columns.fieldNames().forEachRemaining(left::remove);
        left.remove(EventJson.FILE_PATH);
        if (left.isEmpty()) {
            return null;
        }
        // The file path stays last, as the parser writes it.
        JsonNode path = OpenColumns.parse(rescuedData).get(EventJson.FILE_PATH);
        if (path != null) {
            left.set(EventJson.FILE_PATH, path);
        }
        return left.toString();
    }
}
