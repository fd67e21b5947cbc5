package org.flinkss.runtime.table.delta;

import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import org.apache.hadoop.conf.Configuration;

import java.util.HashMap;
import java.util.Map;

/**
 * Where Delta tables live and how their files are read and written: the Delta Kernel {@link Engine}
 * behind every {@link DeltaTable}. The one swap point between storage kinds.
 *
 * <ul>
 *   <li>{@link #flink()} (the default): Kernel's default engine (its JSON and Parquet handlers) on
 *       Flink's {@code FileSystem}, so a table path is any URI Flink has a file system for. Log
 *       entries are written through a {@link PutIfAbsent} chosen by the path's scheme: {@link
 *       PutIfAbsent#localDisk()} for {@code file:}, {@link PutIfAbsent#objectStore()} for {@code
 *       s3:} and {@code s3a:}, a refusal for any other scheme until one is given with {@link
 *       #withPutIfAbsent}.
 *   <li>{@link #hadoop()}: Kernel's own default engine on Hadoop's {@code FileSystem} and
 *       delta-storage's LogStores, as Delta ships it. On a local disk its put-if-absent is an
 *       existence check followed by a rename, which is not atomic across processes.
 * </ul>
 */
public final class DeltaStorage {

    private final Map<String, PutIfAbsent> putIfAbsent;
    private final Engine engine;

    private DeltaStorage(Map<String, PutIfAbsent> putIfAbsent, Engine engine) {
        this.putIfAbsent = putIfAbsent;
        this.engine = engine;
    }

    /** Flink's file systems, with a put-if-absent for local disks and S3. */
    public static DeltaStorage flink() {
        Map<String, PutIfAbsent> byScheme = new HashMap<>();
        byScheme.put("file", PutIfAbsent.localDisk());
        byScheme.put("s3", PutIfAbsent.objectStore());
        byScheme.put("s3a", PutIfAbsent.objectStore());
        return withSchemes(byScheme);
    }

    /**
     * Kernel's default engine on Hadoop's file systems (for comparison, and where Hadoop is the
     * platform).
     */
    public static DeltaStorage hadoop() {
        return new DeltaStorage(null, DefaultEngine.create(new Configuration()));
    }

    /**
     * Tables on {@code engine} as it is (its own file access and put-if-absent): for tests that
     * give Kernel a file system of their making.
     */
    static DeltaStorage ofEngine(Engine engine) {
        return new DeltaStorage(null, engine);
    }

    /** This storage with {@code putIfAbsent} for paths of {@code scheme} (e.g. {@code "s3"}). */
    public DeltaStorage withPutIfAbsent(String scheme, PutIfAbsent putIfAbsent) {
        if (this.putIfAbsent == null) {
            throw new IllegalStateException(
                    "the Hadoop engine takes its LogStores from Hadoop's configuration, not a"
                            + " PutIfAbsent");
        }
        Map<String, PutIfAbsent> byScheme = new HashMap<>(this.putIfAbsent);
        byScheme.put(scheme, putIfAbsent);
        return withSchemes(byScheme);
    }

    private static DeltaStorage withSchemes(Map<String, PutIfAbsent> byScheme) {
        Map<String, PutIfAbsent> copy = Map.copyOf(byScheme);
        FlinkFileIO io =
                new FlinkFileIO(
                        scheme -> copy.getOrDefault(scheme, PutIfAbsent.unsupported(scheme)),
                        Map.of());
        return new DeltaStorage(copy, DefaultEngine.create(io));
    }

    Engine engine() {
        return engine;
    }
}
