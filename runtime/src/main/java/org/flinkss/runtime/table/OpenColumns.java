package org.flinkss.runtime.table;

import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.VarCharType;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import javax.annotation.Nullable;

/**
 * Columns a table gains from its data (Auto Loader's {@code addNewColumns}): a row's values beyond
 * its fixed columns are a JSON object, {@code {"channel":"web","score":3}}, and each field's type
 * is Spark's inference for JSON: a whole number within LONG is {@code BIGINT}, any other number
 * {@code DOUBLE}, a string {@code STRING}, {@code true}/{@code false} {@code BOOLEAN}; an object or
 * an array is {@code STRING} holding its JSON text (Spark would infer a struct or an array). A
 * {@code null} value infers nothing: it adds no column. Once a column exists, a value fits it as
 * Spark's reader converts one ({@link #fits}): a whole number fits a {@code DOUBLE}, and any value
 * fits a {@code STRING} as its JSON text; everything else is a type change.
 */
public final class OpenColumns {

    private static final ObjectMapper JSON = new ObjectMapper();

    private OpenColumns() {}

    /** The fields of a row's JSON object of open columns; empty for null or {@code {}}. */
    public static ObjectNode parse(@Nullable String json) {
        if (json == null || json.isEmpty()) {
            return JSON.createObjectNode();
        }
        try {
            return (ObjectNode) JSON.readTree(json);
        } catch (JsonProcessingException | ClassCastException e) {
            throw new IllegalArgumentException("not a JSON object of columns: " + json, e);
        }
    }

    /** A new, empty object of open columns. */
    public static ObjectNode object() {
        return JSON.createObjectNode();
    }

    /** The type a new column takes from its first value; null for a JSON null (no column). */
    @Nullable
    public static LogicalType inferType(JsonNode value) {
        if (value == null || value.isNull() || value.isMissingNode()) {
            return null;
        }
        if (value.isIntegralNumber() && value.canConvertToLong()) {
            return new BigIntType();
        }
        if (value.isNumber()) {
            return new DoubleType();
        }
        if (value.isBoolean()) {
            return new BooleanType();
        }
        return VarCharType.STRING_TYPE;
    }

    /** Whether a value can be read into a column of this type (null always can). */
    public static boolean fits(JsonNode value, LogicalType type) {
        if (value == null || value.isNull()) {
            return true;
        }
        switch (type.getTypeRoot()) {
            case BIGINT:
                return value.isIntegralNumber() && value.canConvertToLong();
            case DOUBLE:
                return value.isNumber();
            case BOOLEAN:
                return value.isBoolean();
            case VARCHAR:
            case CHAR:
                return true;
            default:
                return false;
        }
    }

    /**
     * A value as Flink's internal data of a column of this type ({@link #fits} first); null for a
     * JSON null.
     */
    @Nullable
    public static Object internal(JsonNode value, LogicalType type) {
        if (value == null || value.isNull()) {
            return null;
        }
        switch (type.getTypeRoot()) {
            case BIGINT:
                return value.longValue();
            case DOUBLE:
                return value.doubleValue();
            case BOOLEAN:
                return value.booleanValue();
            default:
                return StringData.fromString(value.isTextual() ? value.textValue() : text(value));
        }
    }

    /** A value's compact JSON text. */
    public static String text(JsonNode value) {
        return value.toString();
    }

    /** A type as errors and the docs name it: {@code BIGINT}, {@code STRING}. */
    public static String name(LogicalType type) {
        return type.copy(true).asSummaryString();
    }
}
