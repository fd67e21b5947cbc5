package org.flinkss.runtime.table.delta;

import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.table.types.logical.utils.LogicalTypeParser;

import io.delta.kernel.types.DataType;
import io.delta.kernel.types.FieldMetadata;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;

import java.util.ArrayList;
import java.util.List;

/**
 * Flink {@link RowType}s as Delta schemas and back.
 *
 * <p>{@code TIMESTAMP(p)} and {@code TIMESTAMP_LTZ(p)} are Delta's {@code timestamp}: microseconds
 * since the epoch, UTC, as Spark's {@code TIMESTAMP}. The Flink type is kept in the column's
 * metadata ({@value #FLINK_TYPE}) so that a table reads back as the {@code RowType} it was created
 * with (a {@code TIMESTAMP(3)} stays one); a table written by another engine reads as {@code
 * TIMESTAMP(6)}. Other readers ignore the key.
 */
public final class DeltaSchema {

    /** Column metadata key: the Flink type a column was created with. */
    public static final String FLINK_TYPE = "flinkss.type";

    private DeltaSchema() {}

    public static StructType toDelta(RowType rowType) {
        StructType schema = new StructType();
        for (RowType.RowField field : rowType.getFields()) {
            LogicalType type = field.getType();
            FieldMetadata metadata =
                    FieldMetadata.builder()
                            .putString(FLINK_TYPE, type.copy(true).asSerializableString())
                            .build();
            schema =
                    schema.add(
                            new StructField(
                                    field.getName(),
                                    toDelta(type, field.getName()),
                                    type.isNullable(),
                                    metadata));
        }
        return schema;
    }

    private static DataType toDelta(LogicalType type, String column) {
        switch (type.getTypeRoot()) {
            case BIGINT:
                return LongType.LONG;
            case INTEGER:
                return io.delta.kernel.types.IntegerType.INTEGER;
            case CHAR:
            case VARCHAR:
                return StringType.STRING;
            case DOUBLE:
                return io.delta.kernel.types.DoubleType.DOUBLE;
            case BOOLEAN:
                return io.delta.kernel.types.BooleanType.BOOLEAN;
            case BINARY:
            case VARBINARY:
                return io.delta.kernel.types.BinaryType.BINARY;
            case DATE:
                return io.delta.kernel.types.DateType.DATE;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return io.delta.kernel.types.TimestampType.TIMESTAMP;
            default:
                throw new IllegalArgumentException(
                        "column '"
                                + column
                                + "' has type "
                                + type
                                + ", which a Delta table here cannot hold: use BIGINT, INT, STRING,"
                                + " DOUBLE, BOOLEAN, BYTES, DATE or TIMESTAMP");
        }
    }

    /**
     * {@code rowType} with every timestamp column at microseconds ({@code TIMESTAMP(6)} or {@code
     * TIMESTAMP_LTZ(6)}, the kind kept): the precision Delta stores, whatever the table recorded. A
     * table created with {@code TIMESTAMP(3)} reads through it without losing the microseconds of
     * rows another writer (Spark) added, and its readers see one type whichever version wrote it.
     */
    public static RowType withMicros(RowType rowType) {
        List<RowType.RowField> fields = new ArrayList<>();
        for (RowType.RowField field : rowType.getFields()) {
            LogicalType type = field.getType();
            if (type instanceof TimestampType && ((TimestampType) type).getPrecision() < 6) {
                type = new TimestampType(type.isNullable(), 6);
            } else if (type instanceof LocalZonedTimestampType
                    && ((LocalZonedTimestampType) type).getPrecision() < 6) {
                type = new LocalZonedTimestampType(type.isNullable(), 6);
            }
            fields.add(
                    new RowType.RowField(
                            field.getName(), type, field.getDescription().orElse(null)));
        }
        return new RowType(rowType.isNullable(), fields);
    }

    public static RowType toFlink(StructType schema) {
        List<RowType.RowField> fields = new ArrayList<>();
        for (StructField field : schema.fields()) {
            fields.add(new RowType.RowField(field.getName(), toFlink(field)));
        }
        return new RowType(fields);
    }

    private static LogicalType toFlink(StructField field) {
        boolean nullable = field.isNullable();
        String declared = field.getMetadata().getString(FLINK_TYPE);
        DataType type = field.getDataType();
        LogicalType flink;
        if (type instanceof LongType) {
            flink = new BigIntType();
        } else if (type instanceof io.delta.kernel.types.IntegerType) {
            flink = new IntType();
        } else if (type instanceof StringType) {
            flink = new VarCharType(VarCharType.MAX_LENGTH);
        } else if (type instanceof io.delta.kernel.types.DoubleType) {
            flink = new DoubleType();
        } else if (type instanceof io.delta.kernel.types.BooleanType) {
            flink = new BooleanType();
        } else if (type instanceof io.delta.kernel.types.DateType) {
            flink = new DateType();
        } else if (type instanceof io.delta.kernel.types.BinaryType) {
            flink = new VarBinaryType(VarBinaryType.MAX_LENGTH);
        } else if (type instanceof io.delta.kernel.types.TimestampType) {
            flink = new TimestampType(6);
            if (declared != null) {
                LogicalType parsed =
                        LogicalTypeParser.parse(declared, DeltaSchema.class.getClassLoader());
                if (parsed instanceof TimestampType || parsed instanceof LocalZonedTimestampType) {
                    flink = parsed;
                }
            }
        } else {
            throw new IllegalArgumentException(
                    "column '"
                            + field.getName()
                            + "' has Delta type "
                            + type
                            + ", which this project does not read");
        }
        return flink.copy(nullable);
    }
}
