package org.flinkss.course.sql;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.abilities.SupportsReadingMetadata;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.source.ReadLimit;
import org.flinkss.runtime.source.kafka.KafkaPlanner;
import org.flinkss.runtime.source.kafka.KafkaRecordFormat;
import org.flinkss.runtime.source.kafka.KafkaSourceOptions;
import org.flinkss.runtime.source.kafka.KafkaTables;
import org.flinkss.runtime.source.kafka.KafkaTables.BadValue;
import org.flinkss.runtime.sql.MicroBatchTableSource;
import org.flinkss.runtime.sql.SqlSession;
import org.flinkss.runtime.sql.SqlTableException;
import org.flinkss.runtime.sql.SqlWatermark;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A topic as micro-batches of a SQL table, read by the runtime's Kafka source as {@code run
 * kafka-bronze} reads it: each batch the offsets found at its start, the offsets of record in the
 * query's checkpoint, so an available-now run stops at what existed when it started. The table's
 * {@code WATERMARK} is Spark's {@code withWatermark} on its column (a value's column or the
 * record's {@code timestamp}). Values that are not events (format {@code json}) give Spark's {@code
 * from_json} row and, if the table names one, a row in its quarantine table.
 */
final class KafkaTableSource extends MicroBatchTableSource implements SupportsReadingMetadata {

    private static final OutputTag<BadValue> BAD =
            new OutputTag<>("bad-kafka-values", TypeInformation.of(BadValue.class));

    private final String sqlTable;
    private final KafkaSourceOptions kafka;
    private final KafkaRowFormat.Value value;
    private final ResolvedSchema schema;
    private final RowType physical;
    @Nullable private final int[] eventColumns;
    @Nullable private final SqlWatermark watermark;
    @Nullable private final ReadLimit limit;
    @Nullable private final String quarantine;
    private List<String> metadata = List.of();

    KafkaTableSource(
            String sqlTable,
            KafkaSourceOptions kafka,
            KafkaRowFormat.Value value,
            ResolvedSchema schema,
            RowType physical,
            @Nullable int[] eventColumns,
            @Nullable SqlWatermark watermark,
            @Nullable ReadLimit limit,
            @Nullable String quarantine) {
        this.sqlTable = sqlTable;
        this.kafka = kafka;
        this.value = value;
        this.schema = schema;
        this.physical = physical;
        this.eventColumns = eventColumns;
        this.watermark = watermark;
        this.limit = limit;
        this.quarantine = quarantine;
    }

    @Override
    public Map<String, DataType> listReadableMetadata() {
        Map<String, DataType> keys = new LinkedHashMap<>();
        for (String key : KafkaMetadata.KEYS) {
            keys.put(key, KafkaMetadata.type(key));
        }
        return keys;
    }

    @Override
    public void applyReadableMetadata(List<String> metadataKeys, DataType producedDataType) {
        this.metadata = List.copyOf(metadataKeys);
    }

    @Override
    protected DataStream<RowData> rows() {
        SqlSession session = SqlSession.current(KafkaTableFactory.IDENTIFIER);
        QueryContext query = session.context();
        RowType produced = produced();
        int rowtime = rowtime(produced);
        KafkaRowFormat format =
                new KafkaRowFormat(
                        new KafkaRecordFormat(kafka, "flinkss-sql-" + sqlTable),
                        value,
                        physical,
                        eventColumns,
                        metadata,
                        produced,
                        rowtime);
        DataStream<RowData> records =
                query.source(
                        sqlTable,
                        kafka.description(),
                        new KafkaPlanner(kafka),
                        format,
                        watermark == null ? null : watermark.delay(),
                        limit != null ? limit : query.readLimit(),
                        false);
        SingleOutputStreamOperator<RowData> rows =
                records.process(new TableRows(format.columns(), quarantine != null))
                        .returns(InternalTypeInfo.of(produced))
                        .name("rows of " + sqlTable)
                        .uid("sql-rows-" + sqlTable);
        if (quarantine != null) {
            query.toTable(rows.getSideOutput(BAD), KafkaTables.quarantine(quarantine));
        }
        return session.onTime(sqlTable, rows, produced, rowtime);
    }

    /** The table's row: its physical columns, then the metadata columns Flink asked for. */
    private RowType produced() {
        List<RowType.RowField> fields = new ArrayList<>(physical.getFields());
        for (String key : metadata) {
            fields.add(
                    new RowType.RowField(
                            "$metadata:" + key, KafkaMetadata.type(key).getLogicalType()));
        }
        return new RowType(fields);
    }

    /** Where the WATERMARK's column is in the produced row, -1 if the table has none. */
    private int rowtime(RowType produced) {
        if (watermark == null) {
            return -1;
        }
        Column column = schema.getColumn(watermark.column()).orElseThrow();
        if (column instanceof Column.PhysicalColumn) {
            return physical.getFieldIndex(column.getName());
        }
        if (column instanceof Column.MetadataColumn m) {
            String key = m.getMetadataKey().orElse(m.getName());
            return physical.getFieldCount() + metadata.indexOf(key);
        }
        throw new SqlTableException(
                sqlTable,
                "table '"
                        + sqlTable
                        + "' has its WATERMARK on the computed column '"
                        + column.getName()
                        + "': put it on a column of the value or on the record's timestamp"
                        + " (METADATA FROM 'timestamp')");
    }

    @Override
    public DynamicTableSource copy() {
        KafkaTableSource copy =
                new KafkaTableSource(
                        sqlTable,
                        kafka,
                        value,
                        schema,
                        physical,
                        eventColumns,
                        watermark,
                        limit,
                        quarantine);
        copy.metadata = metadata;
        return copy;
    }

    @Override
    public String asSummaryString() {
        return "MicroBatchKafka[" + kafka.description() + "]";
    }

    /** The table's columns of each row; a value that is not an event also to the quarantine. */
    private static final class TableRows extends ProcessFunction<RowData, RowData> {
        private static final long serialVersionUID = 1L;

        private final int columns;
        private final boolean quarantine;

        TableRows(int columns, boolean quarantine) {
            this.columns = columns;
            this.quarantine = quarantine;
        }

        @Override
        public void processElement(RowData row, Context ctx, Collector<RowData> out) {
            GenericRowData all = (GenericRowData) row;
            GenericRowData table = new GenericRowData(columns);
            for (int i = 0; i < columns; i++) {
                table.setField(i, all.getField(i));
            }
            out.collect(table);
            if (quarantine && !all.isNullAt(columns + 4)) {
                ctx.output(
                        BAD,
                        new BadValue(
                                all.getString(columns).toString(),
                                all.getInt(columns + 1),
                                all.getLong(columns + 2),
                                all.isNullAt(columns + 3)
                                        ? null
                                        : all.getString(columns + 3).toString(),
                                all.getString(columns + 4).toString()));
            }
        }
    }
}
