package org.flinkss.course.sql;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import org.flinkss.course.event.EventValues;
import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.source.RecordFormat;
import org.flinkss.runtime.source.SplitRecordReader;
import org.flinkss.runtime.source.kafka.KafkaRecord;
import org.flinkss.runtime.source.kafka.KafkaRecordFormat;
import org.flinkss.runtime.source.kafka.KafkaSplit;
import org.flinkss.runtime.sql.SqlColumns;

import javax.annotation.Nullable;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Kafka records as the rows of a SQL table: the value read by its format (the course's events as
 * JSON by Spark's {@code from_json} rules, or the raw value), then the metadata columns the table
 * declares, in the order Flink's planner asked for them. Five columns follow for the source alone
 * (topic, partition, offset, the raw text and the problem of a value that is not an event): the
 * table's rows are the leading ones ({@link #columns()}).
 */
final class KafkaRowFormat implements RecordFormat<RowData, KafkaSplit> {

    private static final long serialVersionUID = 1L;

    /** How a record's value becomes the table's physical columns. */
    enum Value {
        /** The course's events as JSON: the table's columns are some of their columns. */
        JSON,
        /** The value's bytes, as Flink's {@code raw} format gives them to a BYTES column. */
        RAW_BYTES,
        /** The value as UTF-8 text, as Flink's {@code raw} format gives it to a STRING column. */
        RAW_STRING
    }

    /** The source's own columns after the table's. */
    static final List<String> TRAILING = List.of("topic", "partition", "offset", "raw", "problem");

    private final KafkaRecordFormat records;
    private final Value value;
    private final RowType physical;
    @Nullable private final SqlColumns.Projection events;
    private final List<String> metadata;
    private final RowType produced;
    private final int rowtime;

    /**
     * @param physical the table's physical columns
     * @param eventColumns for {@link Value#JSON}, the index of each physical column among the
     *     events'
     * @param metadata the metadata keys, in the order of the produced row
     * @param produced the table's row: physical columns, then metadata columns
     * @param rowtime the index of the WATERMARK column in {@code produced}, -1 for none
     */
    KafkaRowFormat(
            KafkaRecordFormat records,
            Value value,
            RowType physical,
            @Nullable int[] eventColumns,
            List<String> metadata,
            RowType produced,
            int rowtime) {
        this.records = records;
        this.value = value;
        this.physical = physical;
        this.events =
                value == Value.JSON
                        ? new SqlColumns.Projection(physical, EventTables.EVENT_ROW, eventColumns)
                        : null;
        this.metadata = List.copyOf(metadata);
        this.produced = produced;
        this.rowtime = rowtime;
    }

    /** The number of the table's columns: the leading ones of each row. */
    int columns() {
        return produced.getFieldCount();
    }

    /** The rows' type: the table's, then {@link #TRAILING}. */
    RowType withTrailing() {
        List<RowType.RowField> fields = new ArrayList<>(produced.getFields());
        fields.add(new RowType.RowField("$topic", VarCharType.STRING_TYPE));
        fields.add(new RowType.RowField("$partition", new IntType()));
        fields.add(new RowType.RowField("$offset", new BigIntType()));
        fields.add(new RowType.RowField("$raw", VarCharType.STRING_TYPE));
        fields.add(new RowType.RowField("$problem", VarCharType.STRING_TYPE));
        return new RowType(fields);
    }

    @Override
    public SplitRecordReader<RowData> open(KafkaSplit split) throws IOException {
        SplitRecordReader<KafkaRecord> in = records.open(split);
        return new SplitRecordReader<>() {
            @Override
            public RowData next() throws IOException {
                KafkaRecord r = in.next();
                return r == null ? null : row(r);
            }

            @Override
            public long position() {
                return in.position();
            }

            @Override
            public void close() throws IOException {
                in.close();
            }
        };
    }

    RowData row(KafkaRecord r) {
        int physicalColumns = physical.getFieldCount();
        GenericRowData row = new GenericRowData(produced.getFieldCount() + TRAILING.size());
        String raw = null;
        String problem = null;
        switch (value) {
            case JSON -> {
                EventValues.Read read = EventValues.read(r.value, true);
                RowData columns = events.apply(EventTables.toRow(read.event()));
                for (int i = 0; i < physicalColumns; i++) {
                    row.setField(i, ((GenericRowData) columns).getField(i));
                }
                raw = read.raw();
                problem = read.problem();
            }
            case RAW_BYTES -> row.setField(0, r.value);
            case RAW_STRING ->
                    row.setField(
                            0,
                            r.value == null
                                    ? null
                                    : StringData.fromString(
                                            new String(r.value, StandardCharsets.UTF_8)));
        }
        for (int i = 0; i < metadata.size(); i++) {
            row.setField(physicalColumns + i, KafkaMetadata.value(metadata.get(i), r));
        }
        int at = produced.getFieldCount();
        row.setField(at, StringData.fromString(r.topic));
        row.setField(at + 1, r.partition);
        row.setField(at + 2, r.offset);
        row.setField(at + 3, raw == null ? null : StringData.fromString(raw));
        row.setField(at + 4, problem == null ? null : StringData.fromString(problem));
        return row;
    }

    @Override
    public long eventTime(RowData row) {
        if (rowtime < 0 || row.isNullAt(rowtime)) {
            return Long.MIN_VALUE;
        }
        return row.getTimestamp(rowtime, 3).getMillisecond();
    }

    @Override
    public boolean isBad(RowData row) {
        return !row.isNullAt(produced.getFieldCount() + 4);
    }

    @Override
    public TypeInformation<RowData> producedType() {
        return InternalTypeInfo.of(withTrailing());
    }
}
