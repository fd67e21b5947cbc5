package org.flinkss.runtime.sink.jdbc;

import org.apache.flink.table.types.logical.LogicalType;

import org.flinkss.runtime.table.RowValues;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * A SQL database for upsert tables: SQLite, embedded (a file in the warehouse, the default), or
 * PostgreSQL. Credentials never live in code or in the job: they come from the environment ({@code
 * FLINKSS_JDBC_USER}, {@code FLINKSS_JDBC_PASSWORD}) or from a properties file named by {@code
 * FLINKSS_JDBC_PROPERTIES} ({@code user=}, {@code password=}), read where the connection is made;
 * {@link #describe()} never shows them.
 */
public final class Database implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String url;

    public Database(String url) {
        if (!url.startsWith("jdbc:sqlite:") && !url.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException(
                    "unsupported JDBC URL '"
                            + JdbcCredentials.redacted(url)
                            + "': use jdbc:sqlite:<file> or jdbc:postgresql://host:port/db");
        }
        this.url = url;
    }

    /** The default: {@code <warehouse>/warehouse.db}, SQLite. */
    public static Database sqliteIn(Path warehouse) {
        return new Database("jdbc:sqlite:" + sqliteFileIn(warehouse));
    }

    /** The default database's file, which the first connection creates. */
    public static Path sqliteFileIn(Path warehouse) {
        return warehouse.toAbsolutePath().resolve("warehouse.db");
    }

    public boolean isSqlite() {
        return url.startsWith("jdbc:sqlite:");
    }

    /** The folder of a SQLite database's file; null for a database served elsewhere. */
    @Nullable
    public Path sqliteFolder() {
        return isSqlite() ? sqliteFile().toAbsolutePath().normalize().getParent() : null;
    }

    private Path sqliteFile() {
        return Paths.get(url.substring("jdbc:sqlite:".length()));
    }

    /** The URL without any user or password in it. */
    public String describe() {
        return JdbcCredentials.redacted(url);
    }

    public Connection connect() throws SQLException {
        Properties props = JdbcCredentials.from(System.getenv());
        if (isSqlite()) {
            Path db = sqliteFile();
            try {
                Files.createDirectories(db.toAbsolutePath().getParent());
            } catch (IOException e) {
                throw new SQLException(
                        "cannot create the folder of " + db + ": " + e.getMessage(), e);
            }
            props.setProperty("busy_timeout", "30000");
            // Take the write lock when the transaction begins: two writers that both read first
            // and then upgrade would deadlock, which SQLite reports at once as SQLITE_BUSY.
            props.setProperty("transaction_mode", "IMMEDIATE");
        }
        return DriverManager.getConnection(url, props);
    }

    /** A connection for a user and password given by the caller (tests, tools), never logged. */
    public Connection connect(String user, String password) throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }

    String sqlType(LogicalType type) {
        switch (type.getTypeRoot()) {
            case BIGINT:
                return "BIGINT";
            case INTEGER:
                return "INTEGER";
            case DOUBLE:
                return isSqlite() ? "REAL" : "DOUBLE PRECISION";
            case VARCHAR:
            case CHAR:
                return "TEXT";
            case BOOLEAN:
                return "BOOLEAN";
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return isSqlite() ? "TEXT" : "TIMESTAMPTZ";
            default:
                throw new IllegalArgumentException("no SQL type for " + type);
        }
    }

    int jdbcType(LogicalType type) {
        switch (type.getTypeRoot()) {
            case BIGINT:
                return Types.BIGINT;
            case INTEGER:
                return Types.INTEGER;
            case DOUBLE:
                return Types.DOUBLE;
            case BOOLEAN:
                return Types.BOOLEAN;
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return isSqlite() ? Types.VARCHAR : Types.TIMESTAMP_WITH_TIMEZONE;
            default:
                return Types.VARCHAR;
        }
    }

    /**
     * SQLite keeps timestamps as ISO-8601 text (which sorts like time); PostgreSQL as timestamptz.
     */
    void bindTimestamp(PreparedStatement s, int index, OffsetDateTime value) throws SQLException {
        if (isSqlite()) {
            s.setString(index, value.toInstant().toString());
        } else {
            s.setObject(index, value);
        }
    }

    /** The tables of the database, sorted, without bookkeeping tables (names starting with _). */
    public List<String> tables() throws SQLException {
        List<String> names = new ArrayList<>();
        try (Connection c = connect();
                ResultSet r = c.getMetaData().getTables(null, null, "%", new String[] {"TABLE"})) {
            while (r.next()) {
                String name = r.getString("TABLE_NAME");
                if (!name.startsWith("_") && !name.startsWith("sqlite_") && !names.contains(name)) {
                    names.add(name);
                }
            }
        }
        names.sort(null);
        return names;
    }

    public boolean hasTable(String table) throws SQLException {
        try (Connection c = connect()) {
            return hasTable(c, table);
        }
    }

    /** {@link #hasTable(String)} on a connection (in its transaction). */
    boolean hasTable(Connection c, String table) throws SQLException {
        try (ResultSet r =
                c.getMetaData()
                        .getTables(null, null, isSqlite() ? table : table.toLowerCase(), null)) {
            return r.next();
        }
    }

    /** Every row of a table as Java values (timestamps as Instant), sorted by every column. */
    public List<String> columns(String table) throws SQLException {
        try (Connection c = connect();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT * FROM " + table + " WHERE 1 = 0")) {
            ResultSetMetaData meta = r.getMetaData();
            List<String> names = new ArrayList<>();
            for (int i = 1; i <= meta.getColumnCount(); i++) {
                names.add(meta.getColumnName(i).toLowerCase());
            }
            return names;
        }
    }

    public List<List<Object>> rows(String table) throws SQLException {
        List<List<Object>> rows = new ArrayList<>();
        try (Connection c = connect();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT * FROM " + table)) {
            ResultSetMetaData meta = r.getMetaData();
            while (r.next()) {
                List<Object> row = new ArrayList<>();
                for (int i = 1; i <= meta.getColumnCount(); i++) {
                    row.add(value(r, i, meta));
                }
                rows.add(row);
            }
        }
        rows.sort(RowValues.ORDER);
        return rows;
    }

    /** A column's value as {@link #rows} gives it (timestamps as {@link Instant}). */
    Object value(ResultSet r, int i, ResultSetMetaData meta) throws SQLException {
        Object v = r.getObject(i);
        if (v == null) {
            return null;
        }
        String type = meta.getColumnTypeName(i).toUpperCase();
        if (type.startsWith("TIMESTAMP")) {
            return r.getObject(i, OffsetDateTime.class).toInstant();
        }
        if (isSqlite() && v instanceof String && ((String) v).matches("\\d{4}-\\d\\d-\\d\\dT.*Z")) {
            return Instant.parse((String) v);
        }
        if (v instanceof Integer && type.equals("BIGINT")) {
            return ((Integer) v).longValue();
        }
        if (v instanceof Float) {
            return ((Float) v).doubleValue();
        }
        return v;
    }

    public long count(String table) throws SQLException {
        try (Connection c = connect();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            r.next();
            return r.getLong(1);
        }
    }
}
