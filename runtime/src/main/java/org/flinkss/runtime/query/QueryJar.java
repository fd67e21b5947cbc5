package org.flinkss.runtime.query;

import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.ReadableConfig;

import org.flinkss.runtime.runner.impl.JobConfiguration;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.ZipFile;

/**
 * A user's own {@link Query}, a class in a jar of theirs ({@code run --jar JAR --class CLASS}), run
 * through the same {@link QueryRunner} as the course's queries: the same trigger, checkpoint {@code
 * <base>/_cp/<query name>}, lock, fencing and progress.
 *
 * <p>The jar gets a class loader of its own, whose parent is the one that loaded the runtime: the
 * query is written against the runtime, which its jar leaves out ({@code provided}). The jar also
 * goes to Flink as a user jar ({@code pipeline.jars}), so that the embedded cluster's task managers
 * load the query's functions from it. Under {@code flink run} the jar joins the client's own {@code
 * pipeline.jars}, which the client uploads to the JobManager with the job: the JobManager and
 * TaskManagers need no copy of it (a docker-compose cluster shares no folder with the client). A
 * jar already on the job's class path ({@code flink run -C file://<jar>}) is left to Flink.
 *
 * <p>A jar or class that cannot run is refused before anything is written, in one line that names
 * it ({@link QueryJarException}).
 */
public final class QueryJar implements AutoCloseable {

    private final Path jar;
    private final URLClassLoader loader;
    private final Query query;

    private QueryJar(Path jar, URLClassLoader loader, Query query) {
        this.jar = jar;
        this.loader = loader;
        this.query = query;
    }

    /**
     * Loads {@code className} from {@code jar} and creates it with its public no-argument
     * constructor.
     *
     * @throws QueryJarException if the jar is missing or is no jar, if the class is not in it, is
     *     not a {@link Query} or cannot be created
     */
    public static QueryJar open(Path jar, String className) {
        Path file = jar.toAbsolutePath().normalize();
        checkIsJar(file);
        URLClassLoader loader =
                new URLClassLoader(
                        "query-jar", new URL[] {url(file)}, QueryJar.class.getClassLoader());
        try {
            return new QueryJar(file, loader, create(file, loader, className));
        } catch (RuntimeException | LinkageError e) {
            closeQuietly(loader, e);
            throw e;
        }
    }

    private static void checkIsJar(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new QueryJarException(
                    "--jar "
                            + file
                            + ": no such file: give the jar that holds your query's classes (mvn"
                            + " package builds it into your project's target/)");
        }
        try (ZipFile zip = new ZipFile(file.toFile())) {
            zip.size();
        } catch (IOException e) {
            throw new QueryJarException(
                    "--jar " + file + " is not a jar (" + e.getMessage() + "): give a .jar file",
                    e);
        }
    }

    private static Query create(Path jar, URLClassLoader loader, String className) {
        String entry = className.replace('.', '/') + ".class";
        // Only the jar's own entries: a class of the runtime or the course is not the user's.
        if (loader.findResource(entry) == null) {
            throw new QueryJarException(
                    "class "
                            + className
                            + " is not in "
                            + jar
                            + " (no entry "
                            + entry
                            + "): give --class the full name of your query's class, package"
                            + " included");
        }
        Class<?> type;
        try {
            type = Class.forName(className, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new QueryJarException(
                    "class "
                            + className
                            + " in "
                            + jar
                            + " cannot be loaded ("
                            + e
                            + "): build the jar against this version of the runtime",
                    e);
        }
        if (!Query.class.isAssignableFrom(type)) {
            throw new QueryJarException(
                    "class "
                            + className
                            + " in "
                            + jar
                            + " is not a query: it must implement "
                            + Query.class.getName()
                            + " (name() and build(QueryContext))");
        }
        if (type.isInterface() || Modifier.isAbstract(type.getModifiers())) {
            throw new QueryJarException(
                    "class "
                            + className
                            + " in "
                            + jar
                            + " is abstract: give --class a concrete class that implements "
                            + Query.class.getName());
        }
        Constructor<?> constructor;
        try {
            constructor = type.getConstructor();
        } catch (NoSuchMethodException e) {
            throw new QueryJarException(
                    "class "
                            + className
                            + " in "
                            + jar
                            + " has no public constructor without arguments: add one ('run --jar'"
                            + " creates the query with it)",
                    e);
        }
        if (!Modifier.isPublic(type.getModifiers())) {
            throw new QueryJarException(
                    "class " + className + " in " + jar + " is not public: make it public");
        }
        Query query;
        try {
            query = (Query) constructor.newInstance();
        } catch (InvocationTargetException e) {
            throw new QueryJarException(
                    "class "
                            + className
                            + " in "
                            + jar
                            + ": its constructor failed: "
                            + e.getCause(),
                    e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new QueryJarException(
                    "class " + className + " in " + jar + " cannot be created: " + e, e);
        }
        String name = query.name();
        if (name == null || name.isBlank()) {
            throw new QueryJarException(
                    "class "
                            + className
                            + " in "
                            + jar
                            + " has no name: its name() names the query's checkpoint,"
                            + " <base>/_cp/<name>");
        }
        return query;
    }

    /** The query the class made. */
    public Query query() {
        return query;
    }

    /** The jar, as an absolute path. */
    public Path jar() {
        return jar;
    }

    /**
     * Gives the jar to Flink with the run's options: an embedded run ships it as a user jar ({@code
     * pipeline.jars}). Under {@code flink run} it is added to the client's {@code pipeline.jars}
     * (the job's own jar), which the client uploads to the JobManager's blob server with the job,
     * unless the class is on the job's class path already ({@code flink run -C}).
     */
    public RunOptions.Builder shipWith(RunOptions.Builder options) {
        ReadableConfig client = JobConfiguration.flinkRunClient();
        if (client == null) {
            return options.flinkOption(PipelineOptions.JARS.key(), url(jar).toString());
        }
        if (onClassPathOfTheJob()) {
            return options;
        }
        // The run's Flink options go over the client's configuration: the client's own jar (the
        // project's, which holds the runtime the query is written against) must stay in the list.
        List<String> jars =
                new ArrayList<>(client.getOptional(PipelineOptions.JARS).orElse(List.of()));
        jars.add(url(jar).toString());
        return options.flinkOption(PipelineOptions.JARS.key(), String.join(";", jars));
    }

    /** Whether {@code flink run -C} put the class on the job's class path (the thread's loader). */
    private boolean onClassPathOfTheJob() {
        try {
            Class.forName(
                    query.getClass().getName(),
                    false,
                    Thread.currentThread().getContextClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /**
     * One run of the query as {@link QueryRunner#run} runs any query, with the jar's class loader
     * as the thread's context class loader meanwhile (Flink and the query's libraries look up
     * classes there).
     */
    public QueryRunner.Result run(RunOptions options) {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            return QueryRunner.run(query, options);
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    @Override
    public void close() {
        try {
            loader.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close the class loader of " + jar, e);
        }
    }

    private static URL url(Path file) {
        try {
            return file.toUri().toURL();
        } catch (MalformedURLException e) {
            throw new QueryJarException("--jar " + file + " cannot be a URL: " + e.getMessage(), e);
        }
    }

    private static void closeQuietly(URLClassLoader loader, Throwable failure) {
        try {
            loader.close();
        } catch (IOException e) {
            failure.addSuppressed(e);
        }
    }
}
