package org.flinkss.jobs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.testutils.ProjectScripts;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipInputStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 32 point 7: the jars stay small (docs/distribution.md). One Hadoop version in everything
 * shipped, the S3 plugin's. Each native library in the jars is for a platform the project supports,
 * Linux x86_64 and aarch64 (glibc) and macOS x86_64 and arm64, and every one of those four has its
 * RocksDB and SQLite library; the cluster jar holds neither ICU nor Hadoop nor Flink's S3 plugin,
 * which a Flink installation has; both jars stay under a size ceiling. The native libraries that
 * remain load on this machine from the runnable jar.
 *
 * <p>When a dependency's new version brings a platform, or a new dependency brings native
 * libraries, a test here names the entries: leave them out with a shade filter in {@code
 * jobs/pom.xml} (or name the library's supported-platform layout in {@link #SUPPORTED_NATIVE}).
 */
class DistributionJarsITCase {

    /**
     * About 10% above the sizes of issue 32 point 7 (runnable 252.8 MB, cluster 22.6 MB; 316.8 MB
     * and 34.7 MB before, docs/distribution.md): a dependency that brings its native libraries or
     * its transitive jars back fails here, an ordinary upgrade does not.
     */
    private static final long RUNNABLE_CEILING = 280_000_000L;

    private static final long CLUSTER_CEILING = 25_000_000L;

    /** Where Hadoop's build writes its version, in hadoop-client-api and hadoop-common alike. */
    private static final String HADOOP_VERSION_INFO = "common-version-info.properties";

    private static final String S3_PLUGIN = "flinkss-plugins/s3-fs-hadoop/flink-s3-fs-hadoop.jar";

    private static final Pattern HADOOP_PROPERTY =
            Pattern.compile("<hadoop\\.version>([^<]+)</hadoop\\.version>");

    private static final Pattern ICU_LOCALE_DATA =
            Pattern.compile(
                    "com/ibm/icu/impl/data/icudt[^/]+/"
                            + "(brkitr|coll|zone|unit|curr|lang|region|translit|rbnf)/.*");

    private static final Pattern NATIVE = Pattern.compile(".*\\.(so|dylib|jnilib|dll|a)$");

    /**
     * Every native library either jar may hold, by the layout its library uses, each naming only
     * the four supported platforms.
     */
    private static final List<Pattern> SUPPORTED_NATIVE =
            List.of(
                    // frocksdbjni (RocksDB state): linux64 is x86_64.
                    Pattern.compile(
                            "librocksdbjni-(linux64|linux-aarch64)\\.so"
                                    + "|librocksdbjni-osx-(x86_64|arm64)\\.jnilib"),
                    // sqlite-jdbc (the SQL database's default).
                    Pattern.compile(
                            "org/sqlite/native/(Linux|Mac)/(x86_64|aarch64)/libsqlitejdbc\\.(so|dylib)"),
                    // Parquet's codecs.
                    Pattern.compile(
                            "(linux/(amd64|aarch64)|darwin/(x86_64|aarch64))/libzstd-jni-[0-9.-]+\\.(so|dylib)"),
                    Pattern.compile(
                            "org/xerial/snappy/native/(Linux|Mac)/(x86_64|aarch64)/libsnappyjava\\.(so|dylib)"),
                    // Kafka's client and Flink: lz4.
                    Pattern.compile(
                            "net/jpountz/util/(linux/(amd64|aarch64)|darwin/(x86_64|aarch64))/liblz4-java\\.(so|dylib)"),
                    // Flink's shaded Netty (epoll on Linux, kqueue and DNS on macOS).
                    Pattern.compile(
                            "META-INF/native/liborg_apache_flink_shaded_netty4_netty_"
                                + "(transport_native_epoll_(x86_64|aarch_64)\\.so"
                                + "|(transport_native_kqueue|resolver_dns_native_macos)_(x86_64|aarch_64)\\.jnilib)"),
                    // Flink's profiler (the web UI's flame graphs); one universal macOS library.
                    Pattern.compile("(linux-x64|linux-arm64|macos)/libasyncProfiler\\.so"));

    @TempDir Path dir;

    @Test
    void everyNativeLibraryInTheJarsIsForASupportedPlatform() throws IOException {
        List<String> unsupported = new ArrayList<>();
        for (String name : BuiltJars.ALL) {
            for (String entry : entries(BuiltJars.require(name))) {
                if (NATIVE.matcher(entry).matches() && !supported(entry)) {
                    unsupported.add(name + "!/" + entry);
                }
            }
        }
        assertThat(unsupported)
                .as(
                        "native libraries for a platform the project does not support: leave"
                                + " them out with a shade filter in jobs/pom.xml")
                .isEmpty();
    }

    @Test
    void rocksDbAndSqliteHaveTheirLibraryForEachSupportedPlatform() throws IOException {
        List<String> runnable = natives(BuiltJars.require(BuiltJars.RUNNABLE));
        assertThat(runnable)
                .filteredOn(e -> e.startsWith("librocksdbjni-"))
                .containsExactlyInAnyOrder(
                        "librocksdbjni-linux64.so",
                        "librocksdbjni-linux-aarch64.so",
                        "librocksdbjni-osx-x86_64.jnilib",
                        "librocksdbjni-osx-arm64.jnilib");
        List<String> sqlite =
                List.of(
                        "org/sqlite/native/Linux/x86_64/libsqlitejdbc.so",
                        "org/sqlite/native/Linux/aarch64/libsqlitejdbc.so",
                        "org/sqlite/native/Mac/x86_64/libsqlitejdbc.dylib",
                        "org/sqlite/native/Mac/aarch64/libsqlitejdbc.dylib");
        assertThat(runnable)
                .filteredOn(e -> e.startsWith("org/sqlite/"))
                .containsExactlyInAnyOrderElementsOf(sqlite);
        assertThat(natives(BuiltJars.require(BuiltJars.CLUSTER)))
                .filteredOn(e -> e.startsWith("org/sqlite/"))
                .containsExactlyInAnyOrderElementsOf(sqlite);
    }

    @Test
    void theClusterJarLeavesIcuHadoopAndTheS3PluginToTheCluster() throws IOException {
        List<String> entries = entries(BuiltJars.require(BuiltJars.CLUSTER));
        // ICU (Flink's table modules bring it, for printing results) and Hadoop (Parquet's) are
        // in the cluster's lib/, the S3 file system in its plugins/.
        assertThat(entries)
                .as("ICU, Hadoop or the S3 plugin in the cluster jar")
                .filteredOn(
                        e ->
                                e.startsWith("com/ibm/icu/")
                                        || e.contains("icudt")
                                        || e.startsWith("org/apache/hadoop/")
                                        || e.equals("common-version-info.properties")
                                        || e.startsWith("flinkss-plugins/"))
                .isEmpty();
        // The jar still holds what a Flink installation does not have.
        assertThat(entries)
                .contains(
                        "org/flinkss/jobs/Main.class",
                        "io/delta/kernel/Table.class",
                        "org/apache/kafka/clients/consumer/KafkaConsumer.class",
                        "org/sqlite/JDBC.class",
                        "org/postgresql/Driver.class");
    }

    /**
     * One Hadoop: the runnable jar's (Parquet's and Delta Kernel's), the one inside Flink's S3
     * plugin that it carries, and the one {@code versions/pom.xml} names for the clusters' lib/
     * (scripts/flink-dist, docker/lib) are one version.
     */
    @Test
    void everyHadoopShippedIsTheS3PluginsVersion() throws IOException {
        Path jar = BuiltJars.require(BuiltJars.RUNNABLE);
        String classPath;
        String plugin;
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            classPath = hadoopVersion(zip.getInputStream(zip.getEntry(HADOOP_VERSION_INFO)));
            ZipEntry nested = zip.getEntry(S3_PLUGIN);
            assertThat(nested).as("%s in %s", S3_PLUGIN, jar).isNotNull();
            plugin = hadoopVersionInNested(zip.getInputStream(nested));
        }
        String versions =
                Files.readString(
                        ProjectScripts.ROOT.resolve("versions/pom.xml"), StandardCharsets.UTF_8);
        Matcher declared = HADOOP_PROPERTY.matcher(versions);
        assertThat(declared.find()).as("hadoop.version in versions/pom.xml").isTrue();
        assertThat(List.of(classPath, declared.group(1)))
                .as(
                        "the runnable jar's Hadoop and versions/pom.xml's hadoop.version against"
                                + " the S3 plugin's %s",
                        plugin)
                .containsOnly(plugin);
    }

    /**
     * Flink's runtime and Kafka's client bring two artifacts of lz4-java with the same classes: the
     * runnable jar holds the fork the client needs, every entry as that artifact has it.
     */
    @Test
    void theRunnableJarsLz4IsTheForkKafkasClientNeeds() throws IOException {
        Path jar = BuiltJars.require(BuiltJars.RUNNABLE);
        URL fork =
                getClass()
                        .getClassLoader()
                        .getResource("META-INF/maven/at.yawk.lz4/lz4-java/pom.xml");
        assertThat(fork).as("at.yawk.lz4:lz4-java on the tests' class path").isNotNull();
        // jar:file:/.../lz4-java-<version>.jar!/META-INF/...
        Path forkJar =
                Paths.get(URI.create(fork.getPath().substring(0, fork.getPath().indexOf('!'))));
        List<String> differ = new ArrayList<>();
        try (ZipFile expected = new ZipFile(forkJar.toFile());
                ZipFile actual = new ZipFile(jar.toFile())) {
            // Its classes and resources; of its native libraries, those of supported platforms.
            List<? extends ZipEntry> shippable =
                    expected.stream()
                            .filter(e -> e.getName().startsWith("net/") && !e.isDirectory())
                            .filter(
                                    e ->
                                            !NATIVE.matcher(e.getName()).matches()
                                                    || supported(e.getName()))
                            .toList();
            for (ZipEntry e : shippable) {
                ZipEntry shipped = actual.getEntry(e.getName());
                if (shipped == null || !Arrays.equals(bytes(expected, e), bytes(actual, shipped))) {
                    differ.add(e.getName());
                }
            }
        }
        assertThat(differ)
                .as("lz4 entries of the runnable jar not as %s has them", forkJar)
                .isEmpty();
    }

    @Test
    void theJarsStayUnderTheirCeilings() throws IOException {
        long runnable = Files.size(BuiltJars.require(BuiltJars.RUNNABLE));
        long cluster = Files.size(BuiltJars.require(BuiltJars.CLUSTER));
        assertThat(runnable)
                .as("%s: %s bytes", BuiltJars.RUNNABLE, runnable)
                .isLessThan(RUNNABLE_CEILING);
        assertThat(cluster)
                .as("%s: %s bytes", BuiltJars.CLUSTER, cluster)
                .isLessThan(CLUSTER_CEILING);
    }

    /**
     * The native libraries the filters kept load here, from the runnable jar, as the engine and its
     * drivers load them: RocksDB (state), SQLite (the SQL database), zstd, Snappy and lz4.
     */
    @Test
    void theRunnableJarsNativeLibrariesLoadOnThisMachine() throws Exception {
        Path jar = BuiltJars.require(BuiltJars.RUNNABLE);
        // A single-file program (java's source launcher) on the jar alone, not the tests' class
        // path, so that each library comes from the jar.
        Path source = dir.resolve("LoadNatives.java");
        Files.writeString(
                source,
                String.join(
                        "\n",
                        "public class LoadNatives {",
                        "  public static void main(String[] args) throws Exception {",
                        "    org.rocksdb.RocksDB.loadLibrary();",
                        "    System.out.println(\"rocksdb \" +"
                                + " org.rocksdb.RocksDB.rocksdbVersion());",
                        "    System.out.println(\"sqlite \" +"
                                + " org.sqlite.SQLiteJDBCLoader.initialize());",
                        "    com.github.luben.zstd.util.Native.load();",
                        "    System.out.println(\"zstd \" +"
                                + " com.github.luben.zstd.util.Native.isLoaded());",
                        "    System.out.println(\"snappy \" +"
                                + " org.xerial.snappy.Snappy.getNativeLibraryVersion());",
                        "    System.out.println(\"lz4 \" +"
                                + " net.jpountz.lz4.LZ4Factory.nativeInstance());",
                        "  }",
                        "}",
                        ""),
                StandardCharsets.UTF_8);
        String output = BuiltJars.runJava(dir, "-cp", jar.toString(), source.toString());
        assertThat(output)
                .contains("rocksdb 8.10.0", "sqlite true", "zstd true", "snappy 1.", "lz4 ")
                .doesNotContain("UnsatisfiedLinkError", "Exception");
    }

    /** The version line of Hadoop's {@code common-version-info.properties}. */
    private static String hadoopVersion(InputStream in) throws IOException {
        Properties info = new Properties();
        try (in) {
            info.load(in);
        }
        return info.getProperty("version");
    }

    private static String hadoopVersionInNested(InputStream jar) throws IOException {
        try (ZipInputStream nested = new ZipInputStream(jar)) {
            for (ZipEntry e = nested.getNextEntry(); e != null; e = nested.getNextEntry()) {
                if (e.getName().equals(HADOOP_VERSION_INFO)) {
                    Properties info = new Properties();
                    info.load(nested);
                    return info.getProperty("version");
                }
            }
        }
        throw new AssertionError("no " + HADOOP_VERSION_INFO + " in " + S3_PLUGIN);
    }

    /**
     * The runnable jar keeps only ICU's character properties: Flink's {@code TableResult.print()}
     * measures wide characters with them, from the jar alone.
     */
    @Test
    void theRunnableJarPrintsATableOfWideCharacters() throws Exception {
        Path jar = BuiltJars.require(BuiltJars.RUNNABLE);
        assertThat(entries(jar))
                .as("ICU's locale data in the runnable jar")
                .noneMatch(e -> ICU_LOCALE_DATA.matcher(e).matches());
        Path source = dir.resolve("PrintTable.java");
        Files.writeString(
                source,
                String.join(
                        "\n",
                        "import org.apache.flink.table.api.*;",
                        "public class PrintTable {",
                        "  public static void main(String[] args) {",
                        "    TableEnvironment t = TableEnvironment.create(",
                        "        EnvironmentSettings.inBatchMode());",
                        "    t.executeSql(\"SELECT * FROM (VALUES ('\u4e2d\u6587', 1), ('ab', 2))"
                                + " AS v(word, n)\").print();",
                        "  }",
                        "}",
                        ""),
                StandardCharsets.UTF_8);
        String output =
                BuiltJars.runJava(
                        dir, "-Dfile.encoding=UTF-8", "-cp", jar.toString(), source.toString());
        // Each Chinese character takes two columns: the row with two is as wide as the border.
        assertThat(output).doesNotContain("NoClassDefFoundError", "MissingResourceException");
        List<String> lines = output.lines().toList();
        String border = lines.stream().filter(l -> l.startsWith("+-")).findFirst().orElseThrow();
        String wide =
                lines.stream().filter(l -> l.contains("\u4e2d\u6587")).findFirst().orElseThrow();
        assertThat(wide.length() + 2).as("%s%n%s", border, wide).isEqualTo(border.length());
        assertThat(output).contains("2 rows in set");
    }

    private static boolean supported(String nativeLibrary) {
        return SUPPORTED_NATIVE.stream().anyMatch(p -> p.matcher(nativeLibrary).matches());
    }

    private static byte[] bytes(ZipFile zip, ZipEntry entry) throws IOException {
        try (InputStream in = zip.getInputStream(entry)) {
            return in.readAllBytes();
        }
    }

    private static List<String> natives(Path jar) throws IOException {
        return entries(jar).stream().filter(e -> NATIVE.matcher(e).matches()).toList();
    }

    private static List<String> entries(Path jar) throws IOException {
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            return zip.stream().map(ZipEntry::getName).toList();
        }
    }
}
