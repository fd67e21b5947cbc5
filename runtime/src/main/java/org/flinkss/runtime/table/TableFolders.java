package org.flinkss.runtime.table;

import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.delta.DeltaStorage;
import org.flinkss.runtime.table.delta.DeltaTable;
import org.flinkss.runtime.table.delta.LegacyTables;

import javax.annotation.Nullable;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

/**
 * A warehouse's names and places: which folder holds table {@code name} ({@code
 * <warehouse>/<name>/}, on the local disk or an object store), which names are tables, and how
 * messages name them. The one place that maps a table's name to its folder.
 */
final class TableFolders {

    /** The warehouse's folder: {@code file:/...} or {@code s3://bucket/prefix}. */
    private final Path location;

    /**
     * The local folder of a warehouse on the local disk, absolute and normalized; null on an object
     * store. Tables of the earlier format were only ever written to local folders, and writer
     * records are relative to it: both are local file system matters.
     */
    @Nullable private final File root;

    TableFolders(Path location) {
        if (Storage.isLocal(location)) {
            this.root =
                    Storage.localFile(location, "a warehouse")
                            .toPath()
                            .toAbsolutePath()
                            .normalize()
                            .toFile();
            this.location = Storage.location(this.root);
        } else {
            this.root = null;
            String uri = location.toUri().toString();
            this.location = new Path(uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri);
        }
    }

    /**
     * The local folder, or null on an object store: what a {@link TableOwner}'s relative record is
     * relative to.
     */
    @Nullable
    File rootOrNull() {
        return root;
    }

    Path location() {
        return location;
    }

    boolean isLocal() {
        return root != null;
    }

    /** For messages: the local folder, or the object store URI. */
    String where() {
        return root != null ? root.toString() : location.toString();
    }

    /** For messages: a table's local folder, or its object store URI. */
    String where(String name) {
        return root != null ? localTable(name).toString() : folder(name);
    }

    /** See {@link Warehouse#uri}. */
    String uri(String name) {
        return root != null
                ? localTable(name).toPath().toUri().toString()
                : tableLocation(name) + "/";
    }

    /** See {@link Warehouse#tableLocation}. */
    Path tableLocation(String name) {
        checkName(name);
        return root != null ? Storage.location(new File(root, name)) : new Path(location, name);
    }

    private static void checkName(String name) {
        if (!name.matches("[A-Za-z0-9_]+")) {
            throw new IllegalArgumentException(
                    "bad table name '" + name + "': use letters, digits and _");
        }
    }

    /** A table's folder in a local warehouse. */
    private File localTable(String name) {
        checkName(name);
        return new File(root, name);
    }

    /** See {@link Warehouse#folder}. */
    String folder(String name) {
        String uri =
                root != null
                        ? localTable(name).toPath().toUri().toString()
                        : tableLocation(name).toUri().toString();
        return uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri;
    }

    /** The Delta table of a name; it need not exist. */
    DeltaTable delta(String name) {
        return DeltaTable.forPath(folder(name), DeltaStorage.flink());
    }

    /** See {@link Warehouse#exists}. */
    boolean exists(String name) {
        if (root == null) {
            return delta(name).exists();
        }
        File folder = localTable(name);
        return new File(folder, "_delta_log").isDirectory()
                ? delta(name).exists()
                : LegacyTables.isLegacy(folder);
    }

    /** See {@link Warehouse#isLegacy}. */
    boolean isLegacy(String name) {
        if (root == null) {
            // The earlier format was only ever written to local folders.
            checkName(name);
            return false;
        }
        return LegacyTables.isLegacy(localTable(name));
    }

    /** Refuses a table of the earlier format, with the command that converts it. */
    void refuseLegacy(String name) {
        if (isLegacy(name)) {
            throw new IllegalStateException(LegacyTables.refusal(localTable(name).toString()));
        }
    }

    /** See {@link Warehouse#tables}. */
    List<String> tables() {
        List<String> names = new ArrayList<>();
        if (root == null) {
            try {
                for (FileStatus child : Storage.list(location)) {
                    Path log = new Path(child.getPath(), "_delta_log");
                    if (child.isDir() && Storage.exists(log)) {
                        names.add(child.getPath().getName());
                    }
                }
            } catch (IOException e) {
                return names;
            }
            names.sort(String::compareTo);
            return names;
        }
        try (var dirs = Files.list(root.toPath())) {
            dirs.filter(
                            d ->
                                    Files.isDirectory(d.resolve("_delta_log"))
                                            || LegacyTables.isLegacy(d.toFile()))
                    .forEach(d -> names.add(d.getFileName().toString()));
        } catch (IOException e) {
            return names;
        }
        names.sort(String::compareTo);
        return names;
    }

    /** Whether the warehouse's folder is there. */
    boolean hasFolder() {
        if (root != null) {
            return root.isDirectory();
        }
        try {
            return Storage.exists(location);
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * The table, refused with a clear message if it is missing or of the earlier format.
     *
     * @see Warehouse#existing
     */
    DeltaTable existing(String name) {
        refuseLegacy(name);
        DeltaTable table = delta(name);
        if (!table.exists()) {
            throw new IllegalArgumentException(
                    "no table '"
                            + name
                            + "' in warehouse "
                            + where()
                            + (hasFolder() ? " (tables: " + String.join(", ", tables()) + ")" : "")
                            + ": run the query that writes it first");
        }
        return table;
    }
}
