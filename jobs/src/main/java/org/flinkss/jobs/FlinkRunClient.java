package org.flinkss.jobs;

/**
 * What the command line needs when it runs inside {@code flink run} (the jar's main class, called
 * by Flink's client under a user-code class loader) rather than as {@code java -jar}.
 */
final class FlinkRunClient {

    private FlinkRunClient() {}

    /** Whether this JVM is Flink's client running the jar ({@code flink run ... <args>}). */
    static boolean isUnderFlinkRun() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        return loader != null && loader.getClass().getName().contains("FlinkUserCodeClassLoader");
    }

    /**
     * Hadoop (Parquet reads in {@code table ...}) starts a JVM shutdown hook thread on first use,
     * and a thread inherits the creator's context class loader: under {@code flink run} that is the
     * user-code loader, which the client closes before the JVM exits, so the hook failed with
     * "Trying to access closed classloader". Starting it under Hadoop's own loader avoids that.
     */
    static void startHadoopShutdownHooksOutsideUserCode() {
        Thread thread = Thread.currentThread();
        ClassLoader user = thread.getContextClassLoader();
        try {
            Class<?> hooks =
                    Class.forName("org.apache.hadoop.util.ShutdownHookManager", false, user);
            thread.setContextClassLoader(hooks.getClassLoader());
            Class.forName(hooks.getName(), true, hooks.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            // no Hadoop on this class path: nothing to do
        } finally {
            thread.setContextClassLoader(user);
        }
    }
}
