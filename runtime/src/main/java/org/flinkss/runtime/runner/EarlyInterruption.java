package org.flinkss.runtime.runner;

import org.flinkss.runtime.storage.impl.LocalDisk;

import javax.annotation.Nullable;

import java.io.File;
import java.io.PrintStream;

/**
 * What Ctrl-C says before a run's job is watched (issue 38): while the JVM, the command line, the
 * run's configuration and Flink's embedded cluster start. Without it a SIGINT then ended the
 * process with exit code 130 and not a word.
 *
 * <p>One JVM shutdown hook, installed when the command line starts ({@link #install}), says one
 * line for the moment the process is at: what was interrupted, what was written, what to do. Each
 * moment is set by the code that enters it ({@link #at}); {@link QueryRun} hands over to the run's
 * own hook ({@code InterruptedRun}) once its job is submitted ({@link #silence}), and the command
 * line removes the hook before it exits by itself ({@link #uninstall}): a normal exit says nothing.
 * The hook also deletes the interrupted run's temporary folder, which the run's own cleanup would
 * have removed; the query's lock is an OS lock, released with the process.
 */
public final class EarlyInterruption {

    @Nullable private static Thread hook;
    @Nullable private static PrintStream err;

    /** The line for the current moment; null when another hook speaks or nothing is to be said. */
    @Nullable private static volatile String line;

    /** A run's temporary folder to delete if the process is interrupted now. */
    @Nullable private static volatile File tmpFolder;

    private EarlyInterruption() {}

    /**
     * Installs the hook, at the start of the command line, for {@code command} (its first
     * argument): until a command moves on, nothing was written.
     */
    public static synchronized void install(String command, PrintStream stderr) {
        if (hook != null) {
            return;
        }
        err = stderr;
        line =
                "flinkss "
                        + command
                        + ": interrupted while starting, before it did anything; nothing was"
                        + " written. Run it again.";
        hook = new Thread(EarlyInterruption::onExit, "flinkss-early-interruption");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Removes the hook: the command ends by itself (or under {@code flink run}'s client). */
    public static synchronized void uninstall() {
        line = null;
        if (hook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs or has run
            }
            hook = null;
        }
    }

    /** From now on Ctrl-C says {@code what} (one line). */
    public static void at(String what) {
        line = what;
    }

    /** From now on Ctrl-C says nothing here: another hook speaks, or the command's own work. */
    public static void silence() {
        line = null;
        tmpFolder = null;
    }

    /** The temporary folder of the run that starts: deleted if it is interrupted before its job. */
    static void runFolder(@Nullable File folder) {
        tmpFolder = folder;
    }

    private static void onExit() {
        String said = line;
        File folder = tmpFolder;
        if (said == null) {
            return;
        }
        if (folder != null) {
            LocalDisk.deleteQuietly(folder.toPath());
            File ofQuery = folder.getParentFile();
            String[] left = ofQuery.list();
            if (left != null && left.length == 0) {
                ofQuery.delete();
            }
        }
        PrintStream to = err;
        if (to != null) {
            to.println(said);
            to.flush();
        }
    }
}
