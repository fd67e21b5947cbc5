package org.flinkss.runtime.sink.jdbc;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

import org.flinkss.runtime.sink.BatchFunction;
import org.flinkss.runtime.table.RowValues;

import java.io.Serializable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.function.Predicate;
import java.util.stream.IntStream;

/**
 * The course's {@code foreachBatch} + {@code MERGE} (topic 11.13) on a SQL database: each batch is
 * applied in one transaction as {@code INSERT ... ON CONFLICT (key) DO UPDATE} (insert when not
 * matched, update when matched), together with a row {@code (query id, batch id)} in {@code
 * _flinkss_batches}. A batch handed again after a failure finds its row and changes nothing: with
 * {@code ForEachBatchSink}'s at-least-once delivery, the table is exactly-once. The record is keyed
 * by writer too, for a sink that runs with more than one writer.
 *
 * <p>Rows of one batch with the same key: the last one wins, as MERGE with a deduplicated source. A
 * row of kind {@code DELETE} deletes its key ({@code WHEN MATCHED AND deleted THEN DELETE}).
 *
 * <p>One key column is the table's unique key, as the course's {@code MERGE ... ON t.event_id =
 * s.event_id}: a row whose key is null equals no row, so Delta's MERGE never matches it and inserts
 * it ({@code WHEN NOT MATCHED THEN INSERT *}), a row of its own each time; here too. The column is
 * {@code UNIQUE}, which takes any number of nulls in SQLite and PostgreSQL, not a {@code PRIMARY
 * KEY}, which PostgreSQL makes {@code NOT NULL} (such a batch would fail there again and again); a
 * table made with the key as primary key is changed to this when the sink starts. Several key
 * columns (a window's start, end and group key, for update mode) may hold nulls, as Spark groups
 * nulls together: then the table has an index on them, and a row updates the row whose key is
 * equal, nulls included ({@code IS NOT DISTINCT FROM}), or is inserted.
 */
public final class JdbcUpsert implements BatchFunction<RowData> {

    private static final long serialVersionUID = 1L;

    /** The record of the batches each query committed: {@code (query_id, batch_id, writer)}. */
    public static final String BATCHES = "_flinkss_batches";

    private final Database database;
    private final String table;
    private final RowType rowType;
    private final List<String> keyColumns;
    private final QueryId queryId;

    /**
     * Where the query's id comes from: read when the first batch is applied, it is never in code.
     */
    @FunctionalInterface
    public interface QueryId extends Serializable {
        String get();
    }

    public JdbcUpsert(
            Database database, String table, RowType rowType, String keyColumn, QueryId queryId) {
        this(database, table, rowType, List.of(keyColumn), queryId);
    }

    public JdbcUpsert(
            Database database,
            String table,
            RowType rowType,
            List<String> keyColumns,
            QueryId queryId) {
        for (String k : keyColumns) {
            if (rowType.getFieldIndex(k) < 0) {
                throw new IllegalArgumentException(
                        "table "
                                + table
                                + " has no key column '"
                                + k
                                + "' (columns: "
                                + rowType.getFieldNames()
                                + ")");
            }
        }
        this.database = database;
        this.table = table;
        this.rowType = rowType;
        this.keyColumns = List.copyOf(keyColumns);
        this.queryId = queryId;
    }

    private boolean singleKey() {
        return keyColumns.size() == 1;
    }

    /** Creates the table and the batch record if they do not exist. */
    public void createTables() throws SQLException {
        try (Connection c = database.connect()) {
            createTables(c);
        }
    }

    /** {@link #createTables()} on a connection, in its transaction if one is open. */
    public void createTables(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            StringJoiner columns = new StringJoiner(", ");
            for (RowType.RowField f : rowType.getFields()) {
                columns.add(
                        f.getName()
                                + " "
                                + database.sqlType(f.getType())
                                + (singleKey() && f.getName().equals(keyColumns.get(0))
                                        ? " UNIQUE"
                                        : ""));
            }
            s.executeUpdate("CREATE TABLE IF NOT EXISTS " + table + " (" + columns + ")");
            if (singleKey() && !database.isSqlite()) {
                allowNullKeys(c, s);
            }
            if (!singleKey()) {
                s.executeUpdate(
                        "CREATE INDEX IF NOT EXISTS "
                                + table
                                + "_key ON "
                                + table
                                + " ("
                                + String.join(", ", keyColumns)
                                + ")");
            }
            s.executeUpdate(
                    "CREATE TABLE IF NOT EXISTS "
                            + BATCHES
                            + " (query_id VARCHAR(64) NOT NULL,"
                            + " batch_id BIGINT NOT NULL, writer INTEGER NOT NULL, table_name"
                            + " VARCHAR(255) NOT NULL, num_rows BIGINT NOT NULL, committed_at"
                            + " VARCHAR(40) NOT NULL, PRIMARY KEY (query_id, batch_id, writer))");
        }
    }

    /**
     * A table made by an earlier version has its key as PRIMARY KEY, NOT NULL in PostgreSQL: the
     * key becomes UNIQUE instead, and the column loses the NOT NULL its primary key gave it, so
     * that rows with a null key can be inserted. (SQLite's primary key takes nulls already.)
     */
    private void allowNullKeys(Connection c, Statement s) throws SQLException {
        String key = keyColumns.get(0);
        String primaryKey = null;
        int columns = 0;
        try (ResultSet r = c.getMetaData().getPrimaryKeys(null, null, table.toLowerCase())) {
            while (r.next()) {
                columns++;
                if (r.getString("COLUMN_NAME").equalsIgnoreCase(key)) {
                    primaryKey = r.getString("PK_NAME");
                }
            }
        }
        if (primaryKey != null && columns == 1) {
            s.executeUpdate(
                    "ALTER TABLE "
                            + table
                            + " DROP CONSTRAINT "
                            + primaryKey
                            + ", ALTER COLUMN "
                            + key
                            + " DROP NOT NULL, ADD UNIQUE ("
                            + key
                            + ")");
        }
    }

    @Override
    public void apply(List<RowData> rows, long batchId) throws SQLException {
        apply(rows, batchId, 0);
    }

    @Override
    public void apply(List<RowData> rows, long batchId, int writer) throws SQLException {
        String query = queryId.get();
        try (Connection c = database.connect()) {
            c.setAutoCommit(false);
            try {
                if (alreadyApplied(c, query, batchId, writer)) {
                    c.rollback();
                    return;
                }
                if (!rows.isEmpty()) {
                    upsert(c, rows);
                }
                try (PreparedStatement record =
                        c.prepareStatement(
                                "INSERT INTO "
                                        + BATCHES
                                        + " (query_id, batch_id, writer, table_name, num_rows,"
                                        + " committed_at) VALUES (?, ?, ?, ?, ?, ?)")) {
                    record.setString(1, query);
                    record.setLong(2, batchId);
                    record.setInt(3, writer);
                    record.setString(4, table);
                    record.setLong(5, rows.size());
                    record.setString(6, Instant.now().toString());
                    record.executeUpdate();
                }
                c.commit();
            } catch (SQLException e) {
                c.rollback();
                throw new SQLException(
                        "upsert of batch "
                                + batchId
                                + " into "
                                + table
                                + " at "
                                + database.describe()
                                + " failed: "
                                + e.getMessage(),
                        e);
            }
        }
    }

    /**
     * Whether the query of {@code queryId} has committed a batch into {@code table} of {@code
     * database}: its rows live there (an update-mode run, or {@code latest}), not in the warehouse.
     */
    public static boolean writtenBy(Database database, String table, String queryId)
            throws SQLException {
        if (!database.hasTable(BATCHES)) {
            return false;
        }
        try (Connection c = database.connect();
                PreparedStatement s =
                        c.prepareStatement(
                                "SELECT 1 FROM "
                                        + BATCHES
                                        + " WHERE query_id = ? AND table_name = ?")) {
            s.setString(1, queryId);
            s.setString(2, table);
            try (ResultSet r = s.executeQuery()) {
                return r.next();
            }
        }
    }

    /**
     * Replaces, in one transaction, the rows whose key {@code toReplace} accepts (the values of the
     * key columns in order, timestamps as {@link Instant}) by {@code rows}, outside any stream: a
     * recompute of closed windows. A reader sees the table before or after. The caller holds the
     * writing query's lock. Returns how many rows were removed.
     */
    public long replace(Predicate<List<Object>> toReplace, List<RowData> rows) throws SQLException {
        try (Connection c = database.connect()) {
            c.setAutoCommit(false);
            try {
                List<List<Object>> keys = new ArrayList<>();
                try (Statement s = c.createStatement();
                        ResultSet r =
                                s.executeQuery(
                                        "SELECT "
                                                + String.join(", ", keyColumns)
                                                + " FROM "
                                                + table)) {
                    while (r.next()) {
                        List<Object> key = new ArrayList<>();
                        for (int i = 1; i <= keyColumns.size(); i++) {
                            key.add(database.value(r, i, r.getMetaData()));
                        }
                        if (toReplace.test(key)) {
                            keys.add(key);
                        }
                    }
                }
                try (PreparedStatement delete =
                        c.prepareStatement("DELETE FROM " + table + " WHERE " + keyCondition())) {
                    for (List<Object> key : keys) {
                        for (int i = 0; i < key.size(); i++) {
                            LogicalType type =
                                    rowType.getTypeAt(rowType.getFieldIndex(keyColumns.get(i)));
                            bind(delete, i + 1, key.get(i), type);
                        }
                        delete.executeUpdate();
                    }
                }
                if (!rows.isEmpty()) {
                    upsert(c, rows);
                }
                c.commit();
                return keys.size();
            } catch (SQLException e) {
                c.rollback();
                throw new SQLException(
                        "replacing rows of "
                                + table
                                + " at "
                                + database.describe()
                                + " failed: "
                                + e.getMessage(),
                        e);
            }
        }
    }

    private static boolean alreadyApplied(Connection c, String query, long batchId, int writer)
            throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement(
                        "SELECT 1 FROM "
                                + BATCHES
                                + " WHERE query_id = ? AND batch_id = ? AND"
                                + " writer = ?")) {
            s.setString(1, query);
            s.setLong(2, batchId);
            s.setInt(3, writer);
            try (ResultSet r = s.executeQuery()) {
                return r.next();
            }
        }
    }

    private void upsert(Connection c, List<RowData> rows) throws SQLException {
        if (singleKey() && rows.stream().noneMatch(r -> r.getRowKind() == RowKind.DELETE)) {
            insertOnConflict(c, rows);
        } else {
            updateOrInsert(c, rows);
        }
    }

    /** Any number of key columns, nulls in keys, deletes: one statement or two per row. */
    private void updateOrInsert(Connection c, List<RowData> rows) throws SQLException {
        List<String> names = rowType.getFieldNames();
        String where = keyCondition();
        StringJoiner sets = new StringJoiner(", ");
        StringJoiner cols = new StringJoiner(", ");
        StringJoiner marks = new StringJoiner(", ");
        for (int i = 0; i < names.size(); i++) {
            cols.add(names.get(i));
            marks.add("?");
            if (!keyColumns.contains(names.get(i))) {
                sets.add(names.get(i) + " = ?");
            }
        }
        int[] keyFields = keyColumns.stream().mapToInt(rowType::getFieldIndex).toArray();
        int[] valueFields =
                IntStream.range(0, names.size())
                        .filter(i -> !keyColumns.contains(names.get(i)))
                        .toArray();
        int[] allFields = IntStream.range(0, names.size()).toArray();
        try (PreparedStatement update =
                        c.prepareStatement("UPDATE " + table + " SET " + sets + " WHERE " + where);
                PreparedStatement insert =
                        c.prepareStatement(
                                "INSERT INTO " + table + " (" + cols + ") VALUES (" + marks + ")");
                PreparedStatement delete =
                        c.prepareStatement("DELETE FROM " + table + " WHERE " + where)) {
            for (RowData row : rows) {
                if (row.getRowKind() == RowKind.DELETE) {
                    bindFields(delete, 1, row, keyFields);
                    delete.executeUpdate();
                    continue;
                }
                int next = bindFields(update, 1, row, valueFields);
                bindFields(update, next, row, keyFields);
                if (update.executeUpdate() == 0) {
                    bindFields(insert, 1, row, allFields);
                    insert.executeUpdate();
                }
            }
        }
    }

    /** The row of a key: {@code k1 = ? AND k2 = ?}, as the keys match. */
    private String keyCondition() {
        // One key: MERGE's ON t.k = s.k, so a null key matches nothing (inserted, never updated
        // or deleted). Several: nulls are equal, as Spark groups them.
        String equal =
                singleKey() ? " = ?" : database.isSqlite() ? " IS ?" : " IS NOT DISTINCT FROM ?";
        StringJoiner where = new StringJoiner(" AND ");
        for (String k : keyColumns) {
            where.add(k + equal);
        }
        return where.toString();
    }

    private int bindFields(PreparedStatement s, int first, RowData row, int[] fields)
            throws SQLException {
        int index = first;
        for (int f : fields) {
            bind(s, index++, RowValues.get(row, f, rowType.getTypeAt(f)), rowType.getTypeAt(f));
        }
        return index;
    }

    private void insertOnConflict(Connection c, List<RowData> rows) throws SQLException {
        String keyColumn = keyColumns.get(0);
        List<String> names = rowType.getFieldNames();
        StringJoiner cols = new StringJoiner(", ");
        StringJoiner marks = new StringJoiner(", ");
        StringJoiner updates = new StringJoiner(", ");
        for (String name : names) {
            cols.add(name);
            marks.add("?");
            if (!name.equals(keyColumn)) {
                updates.add(name + " = excluded." + name);
            }
        }
        String sql =
                "INSERT INTO "
                        + table
                        + " ("
                        + cols
                        + ") VALUES ("
                        + marks
                        + ") ON CONFLICT ("
                        + keyColumn
                        + ") DO UPDATE SET "
                        + updates;
        try (PreparedStatement s = c.prepareStatement(sql)) {
            for (RowData row : rows) {
                for (int i = 0; i < names.size(); i++) {
                    bind(
                            s,
                            i + 1,
                            RowValues.get(row, i, rowType.getTypeAt(i)),
                            rowType.getTypeAt(i));
                }
                s.addBatch();
            }
            s.executeBatch();
        }
    }

    private void bind(PreparedStatement s, int index, Object value, LogicalType type)
            throws SQLException {
        if (value == null) {
            s.setNull(index, database.jdbcType(type));
        } else if (value instanceof Instant) {
            database.bindTimestamp(
                    s, index, OffsetDateTime.ofInstant((Instant) value, ZoneOffset.UTC));
        } else {
            s.setObject(index, value);
        }
    }
}
