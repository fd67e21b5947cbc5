package org.flinkss.runtime.storage.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;

import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The files of a folder whose names sort at or after a given name, in name order: how a Delta log
 * is read ({@code _delta_log/} holds two files per version, and a reader needs only those from its
 * last checkpoint on). See {@code Storage.listFrom}.
 *
 * <p>S3 lists keys in order and can start after a key ({@code ListObjectsV2}'s {@code StartAfter}),
 * so a 10,000-version log costs one request for its last few entries, not twenty pages of 1,000
 * ({@link S3Listing}). A local folder cannot be listed from a name: its names are read (no status
 * per file) and only the files at or after the name get their status read. Other storage: Flink's
 * listing, filtered.
 */
@Internal
public final class ListFrom {

    private ListFrom() {}

    /**
     * @throws FileNotFoundException when the folder does not exist (on S3: no object under it)
     */
    public static List<FileEntry> files(Path folder, String fromName) throws IOException {
        List<FileEntry> files;
        if (Locations.isLocal(folder)) {
            files = localDisk(folder, fromName);
        } else if (Locations.isObjectStore(folder)) {
            files = s3(folder, fromName);
        } else {
            files = flinkListing(folder, fromName);
        }
        files.sort(Comparator.comparing(FileEntry::name));
        return files;
    }

    private static List<FileEntry> localDisk(Path folder, String fromName) throws IOException {
        File dir = Locations.localFile(folder, "a folder listed");
        String[] names = dir.list();
        if (names == null) {
            throw new FileNotFoundException("no folder " + folder);
        }
        List<FileEntry> files = new ArrayList<>();
        for (String name : names) {
            if (name.compareTo(fromName) < 0) {
                continue;
            }
            BasicFileAttributes attributes;
            try {
                attributes =
                        Files.readAttributes(dir.toPath().resolve(name), BasicFileAttributes.class);
            } catch (NoSuchFileException e) {
                // Deleted since the names were read: another writer's temporary file.
                continue;
            }
            if (attributes.isRegularFile()) {
                files.add(
                        new FileEntry(
                                new Path(folder, name),
                                attributes.size(),
                                attributes.lastModifiedTime().toMillis()));
            }
        }
        return files;
    }

    private static List<FileEntry> flinkListing(Path folder, String fromName) throws IOException {
        FileStatus[] statuses = folder.getFileSystem().listStatus(folder);
        if (statuses == null) {
            throw new FileNotFoundException("no folder " + folder);
        }
        List<FileEntry> files = new ArrayList<>();
        for (FileStatus s : statuses) {
            if (!s.isDir() && s.getPath().getName().compareTo(fromName) >= 0) {
                files.add(new FileEntry(s.getPath(), s.getLen(), s.getModificationTime()));
            }
        }
        return files;
    }

    private static List<FileEntry> s3(Path folder, String fromName) throws IOException {
        List<FileEntry> files = S3Listing.files(folder, false, fromName);
        if (files == null) {
            return flinkListing(folder, fromName); // not S3A
        }
        if (files.isEmpty() && !S3Listing.anyObjectUnder(folder)) {
            throw new FileNotFoundException("no folder " + folder + " (no object under it)");
        }
        return files;
    }
}
