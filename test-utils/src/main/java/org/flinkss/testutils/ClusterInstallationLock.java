package org.flinkss.testutils;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The one {@code scripts/cluster} installation of a checkout ({@code .flink}) and its fixed ports
 * (8081, 6123), held by one test class at a time across the failsafe JVMs: the test classes that
 * start that cluster ({@code ClusterITCase}, {@code DocPortsCommandsITCase}) run among the other
 * integration tests, several JVMs at once (the root pom's failsafe execution), and take this lock
 * (a file lock, which the operating system releases if the JVM dies) for as long as their cluster
 * runs. A test with an installation ({@code FLINK_HOME}) and ports of its own needs no turn.
 */
public final class ClusterInstallationLock implements AutoCloseable {

    private static final Path FILE =
            ProjectScripts.ROOT.resolve("jobs/target/scripts-cluster.lock");

    private final FileChannel channel;
    private final FileLock lock;

    private ClusterInstallationLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /** Waits until no other test class holds the installation, then holds it. */
    public static ClusterInstallationLock acquire(String testClass) throws IOException {
        Files.createDirectories(FILE.getParent());
        FileChannel channel =
                FileChannel.open(FILE, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        long start = System.nanoTime();
        try {
            FileLock lock = channel.lock();
            double waited = (System.nanoTime() - start) / 1e9;
            if (waited > 1) {
                System.out.printf(
                        "[%s] waited %.1f s for the scripts/cluster installation (%s)%n",
                        testClass, waited, FILE);
            }
            return new ClusterInstallationLock(channel, lock);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    @Override
    public void close() throws IOException {
        try {
            lock.release();
        } finally {
            channel.close();
        }
    }
}
