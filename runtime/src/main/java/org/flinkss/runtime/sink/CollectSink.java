package org.flinkss.runtime.sink;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Collects rows in memory under a name, for tests on an embedded cluster (same JVM): the course's
 * {@code format("memory")}. At-least-once; testing only.
 */
public final class CollectSink<T> implements Sink<T> {

    private static final long serialVersionUID = 1L;
    private static final Map<String, List<Object>> COLLECTED = new ConcurrentHashMap<>();

    private final String name;

    public CollectSink(String name) {
        this.name = name;
    }

    /** What was collected under {@code name} so far, in arrival order per subtask. */
    @SuppressWarnings("unchecked")
    public static <T> List<T> collected(String name) {
        List<Object> list = COLLECTED.getOrDefault(name, List.of());
        synchronized (list) {
            return (List<T>) new ArrayList<>(list);
        }
    }

    public static void clear(String name) {
        COLLECTED.remove(name);
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) {
        List<Object> list = COLLECTED.computeIfAbsent(name, n -> new ArrayList<>());
        return new SinkWriter<>() {
            @Override
            public void write(T element, Context ctx) {
                synchronized (list) {
                    list.add(element);
                }
            }

            @Override
            public void flush(boolean endOfInput) {}

            @Override
            public void close() {}
        };
    }
}
