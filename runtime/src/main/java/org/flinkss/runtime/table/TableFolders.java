package org.flinkss.runtime.table;

import org.apache.flink.core.fs.FileStatus;

import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.delta.DeltaStorage;
import org.flinkss.runtime.table.delta.DeltaTable;
import org.flinkss.runtime.table.delta.LegacyTables;

import javax.annotation.Nullable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A warehouse's names and places: which folder holds table {@code name} ({@code
 * <warehouse>/<name>/}, on the local disk or an object store), which names are tables, and how
 * messages name them. The one place that maps a table's name to its folder.
 */
final class TableFolders {

    /** The warehouse's folder: {@code file:/...} or {@code s3://bucket/prefix}. */
    private final org.apache.flink.core.fs.Path location;

    /** The local folder of a warehouse on the local disk; null on an object store. */
    @Nullable private final Path root;

    TableFolders(Path root) {
        this.root = root.toAbsolutePath().normalize();
        this.location = Storage.location(this.root);
    }

    TableFolders(org.apache.flink.core.fs.Path location) {
        if (Storage.isLocal(location)) {
            this.root = Storage.localFile(location, "a warehouse").toAbsolutePath().normalize();
            this.location = Storage.location(this.root);
        } else {
            this.root = null;
            String uri = location.toUri().toString();
            this.location =
                    new org.apache.flink.core.fs.Path(
                            uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri);
        }
    }

    /** See {@link Warehouse#root()}. */
    Path root() {
        if (root == null) {
            throw new IllegalStateException(
                    "the warehouse "
                            + location
                            + " is on an object store, not a local folder: this needs a local"
                            + " --warehouse (docs/object-storage.md)");
        }
        return root;
    }

    /** The local folder, or null on an object store. */
    @Nullable
    Path rootOrNull() {
        return root;
    }

    org.apache.flink.core.fs.Path location() {
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
        return root != null ? tablePath(name).toString() : folder(name);
    }

    /** See {@link Warehouse#uri}. */
    String uri(String name) {
        return root != null ? tablePath(name).toUri().toString() : tableLocation(name) + "/";
    }

    /** See {@link Warehouse#tableLocation}. */
    org.apache.flink.core.fs.Path tableLocation(String name) {
        checkName(name);
        return root != null
                ? Storage.location(root.resolve(name))
                : new org.apache.flink.core.fs.Path(location, name);
    }

    private static void checkName(String name) {
        if (!name.matches("[A-Za-z0-9_]+")) {
            throw new IllegalArgumentException(
                    "bad table name '" + name + "': use letters, digits and _");
        }
    }

    /** See {@link Warehouse#tablePath}. */
    Path tablePath(String name) {
        checkName(name);
        return root().resolve(name);
    }

    /** See {@link Warehouse#folder}. */
    String folder(String name) {
        String uri =
                root != null
                        ? tablePath(name).toUri().toString()
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
        Path folder = tablePath(name);
        return Files.isDirectory(folder.resolve("_delta_log"))
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
        return LegacyTables.isLegacy(tablePath(name));
    }

    /** Refuses a table of the earlier format, with the command that converts it. */
    void refuseLegacy(String name) {
        if (isLegacy(name)) {
            throw new IllegalStateException(LegacyTables.refusal(tablePath(name).toString()));
        }
    }

    /** See {@link Warehouse#tables}. */
    List<String> tables() {
        List<String> names = new ArrayList<>();
        if (root == null) {
            try {
                for (FileStatus child : Storage.list(location)) {
                    org.apache.flink.core.fs.Path log =
                            new org.apache.flink.core.fs.Path(child.getPath(), "_delta_log");
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
        try (Stream<Path> dirs = Files.list(root)) {
            dirs.filter(d -> Files.isDirectory(d.resolve("_delta_log")) || LegacyTables.isLegacy(d))
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
            return Files.isDirectory(root);
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
