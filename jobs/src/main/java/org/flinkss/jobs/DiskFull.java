package org.flinkss.jobs;

import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.ToLongFunction;

/**
 * A command that failed because a local disk it writes is full, said in one line: which disk (the
 * folder the command was given), and that what was committed stands. Decided by the disk's free
 * space when the command failed, not by the exception's words: a failure with an {@link
 * IOException} among its causes while one of the command's folders has less than {@link #FULL}
 * bytes free.
 */
final class DiskFull {

    /** Below this many free bytes a disk is taken as full (a commit or checkpoint needs more). */
    static final long FULL = 16L << 20;

    private static final List<String> FOLDER_OPTIONS = List.of("--base", "--warehouse");

    private final ToLongFunction<Path> usableSpace;

    DiskFull(ToLongFunction<Path> usableSpace) {
        this.usableSpace = usableSpace;
    }

    /** The free space of a local folder's disk (its nearest existing ancestor's). */
    static long usableSpace(Path folder) {
        Path existing = folder.toAbsolutePath();
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return Long.MAX_VALUE;
        }
        try {
            FileStore store = Files.getFileStore(existing);
            // A pseudo file system (/sys, /proc: no size) or a read-only one is never "full": a
            // write there fails for another reason, which the command says itself.
            if (store.getTotalSpace() == 0 || store.isReadOnly()) {
                return Long.MAX_VALUE;
            }
            return store.getUsableSpace();
        } catch (IOException e) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * One line when {@code failure} is a write that a full disk of the command's folders (or the
     * temporary folder) explains; empty otherwise.
     */
    Optional<String> explain(Throwable failure, List<Path> folders) {
        if (!causedByIo(failure)) {
            return Optional.empty();
        }
        for (Path folder : folders) {
            long free = usableSpace.applyAsLong(folder);
            if (free < FULL) {
                return Optional.of(
                        "the disk of "
                                + folder.toAbsolutePath()
                                + " is full ("
                                + free / 1024
                                + " KB free): the command stopped; nothing committed was lost (each"
                                + " table keeps its last committed batch, and the next run goes on"
                                + " from it). Free space on that disk and run again");
            }
        }
        return Optional.empty();
    }

    /** The local folders a parsed command line names ({@code --base}, {@code --warehouse}). */
    static List<Path> folders(ParseResult parsed) {
        List<Path> folders = new ArrayList<>();
        for (ParseResult p = parsed; p != null; p = p.subcommand()) {
            for (String name : FOLDER_OPTIONS) {
                OptionSpec option = p.matchedOption(name);
                if (option != null && !option.stringValues().isEmpty()) {
                    local(option.stringValues().get(0)).ifPresent(folders::add);
                }
            }
        }
        if (folders.isEmpty()) {
            folders.add(Path.of("").toAbsolutePath()); // the default base, ./
        }
        folders.add(Path.of(System.getProperty("java.io.tmpdir")));
        return folders;
    }

    private static Optional<Path> local(String value) {
        if (value.contains("://") && !value.startsWith("file:")) {
            return Optional.empty(); // an object store has no disk to fill
        }
        try {
            return Optional.of(Path.of(value.startsWith("file:") ? value.substring(5) : value));
        } catch (InvalidPathException e) {
            return Optional.empty();
        }
    }

    private static boolean causedByIo(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof IOException || t instanceof UncheckedIOException) {
                return true;
            }
        }
        return false;
    }
}
