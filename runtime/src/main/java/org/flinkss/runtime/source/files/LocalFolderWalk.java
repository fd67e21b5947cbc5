package org.flinkss.runtime.source.files;

import java.io.File;
import java.io.IOException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;

/**
 * The walk of a source folder on a local disk, for {@link FilePlanner}: here the local file system
 * is the point (links followed, a link back to an ancestor and a link to nothing told apart, files
 * replaced while the walk runs passed over), which Flink's file systems do not show, so it works on
 * {@code java.nio} files. A folder on an object store is listed with Flink's file system instead.
 */
public final class LocalFolderWalk {

    private LocalFolderWalk() {}

    /** A file the walk found: its absolute path, and its key (its path below the folder). */
    record Keyed(String location, String key) {}

    /** The visible files below {@code root} whose names end with {@code suffix}, oldest first. */
    public static List<Path> list(Path root, String suffix) throws IOException {
        return walk(root, suffix).files();
    }

    /**
     * What a walk of a source folder found: the files to read, oldest first, and what it passed
     * over that a user may have meant to be read.
     *
     * @param files the visible files whose names end with the suffix, oldest first
     * @param otherNames visible files whose names do not end with the suffix: not read, as Spark's
     *     {@code pathGlobFilter} does not read them
     * @param cycles links that lead back to a folder that contains them: not followed again
     * @param brokenLinks links to nothing
     */
    public record Listing(
            List<Path> files, List<Path> otherNames, List<Path> cycles, List<Path> brokenLinks) {}

    /**
     * Walks {@code root} as Spark's file index does: links are followed (the folder itself, files
     * and folders inside), hidden names are skipped. Unlike Spark, which follows a link to an
     * ancestor until the operating system's limit and reads the same files again at every level, a
     * link that leads back to a folder containing it is not followed: each file is read once.
     */
    public static Listing walk(Path root, String suffix) throws IOException {
        Listing listing =
                new Listing(
                        new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        if (!Files.isDirectory(root)) {
            return listing;
        }
        record Found(Path file, long modified) {}
        List<Found> found = new ArrayList<>();
        Files.walkFileTree(
                root,
                EnumSet.of(FileVisitOption.FOLLOW_LINKS),
                Integer.MAX_VALUE,
                new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                        return !dir.equals(root) && hidden(dir)
                                ? FileVisitResult.SKIP_SUBTREE
                                : FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                        if (hidden(file)) {
                            return FileVisitResult.CONTINUE;
                        }
                        if (attrs.isSymbolicLink()) {
                            // Links are followed: one whose attributes are its own leads nowhere.
                            listing.brokenLinks().add(file);
                        } else if (!attrs.isRegularFile()) {
                            return FileVisitResult.CONTINUE;
                        } else if (file.getFileName().toString().endsWith(suffix)) {
                            found.add(new Found(file, attrs.lastModifiedTime().toMillis()));
                        } else {
                            listing.otherNames().add(file);
                        }
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFileFailed(Path file, IOException e)
                            throws IOException {
                        // A folder replaced while we walk (land-events overwrites batches): skip
                        // it.
                        if (e instanceof NoSuchFileException) {
                            return FileVisitResult.CONTINUE;
                        }
                        if (e instanceof FileSystemLoopException) {
                            if (!hidden(file)) {
                                listing.cycles().add(file);
                            }
                            return FileVisitResult.CONTINUE;
                        }
                        throw e;
                    }
                });
        found.sort(
                Comparator.comparingLong(Found::modified).thenComparing(f -> f.file().toString()));
        for (Found f : found) {
            listing.files().add(f.file());
        }
        listing.otherNames().sort(Comparator.naturalOrder());
        return listing;
    }

    static boolean hidden(Path path) {
        String name = path.getFileName().toString();
        return name.startsWith(".") || name.startsWith("_");
    }

    /** The files of a listing of folder {@code root} with their keys, in the listing's order. */
    static List<Keyed> keyed(String root, Listing listing) {
        Path folder = Paths.get(root);
        // The walk's paths are the folder's path and a name below it: the key is that name,
        // cut off the string (Path.relativize costs more, with 10,000 files and more).
        String prefix = folder.toString() + folder.getFileSystem().getSeparator();
        List<Keyed> keyed = new ArrayList<>(listing.files().size());
        for (Path file : listing.files()) {
            String location = file.toString();
            String key =
                    location.startsWith(prefix)
                            ? location.substring(prefix.length())
                            : folder.relativize(file).toString();
            keyed.add(new Keyed(location, key));
        }
        return keyed;
    }

    /** The keys of the files of folder {@code root} not read for their names. */
    static List<String> otherKeys(String root, Listing listing) {
        List<String> other = new ArrayList<>();
        for (Path file : listing.otherNames()) {
            other.add(Paths.get(root).relativize(file).toString());
        }
        return other;
    }

    /** The size of a local file; 0 if it is gone (the reader says so, with the file's name). */
    static long sizeOf(String file) {
        return sizeOf(new File(file).toPath());
    }

    private static long sizeOf(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return 0; // gone: the reader says so, with the file's name
        }
    }
}
