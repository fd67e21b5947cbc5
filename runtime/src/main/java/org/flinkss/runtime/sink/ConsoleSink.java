package org.flinkss.runtime.sink;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

import java.io.PrintStream;

/**
 * Prints every row, with a line at each commit: the course's {@code format("console")}, for trying
 * a query. For testing only: at-least-once, a replayed batch prints again.
 */
public final class ConsoleSink<T> implements Sink<T> {

    private static final long serialVersionUID = 1L;

    private final String name;

    public ConsoleSink(String name) {
        this.name = name;
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) {
        int subtask = context.getTaskInfo().getIndexOfThisSubtask();
        PrintStream out = System.out;
        return new SinkWriter<>() {
            private long rows;

            @Override
            public void write(T element, Context ctx) {
                rows++;
                out.println(name + "[" + subtask + "]> " + element);
            }

            @Override
            public void flush(boolean endOfInput) {
                if (rows > 0) {
                    out.println(
                            "-------- "
                                    + name
                                    + "["
                                    + subtask
                                    + "]: "
                                    + rows
                                    + " rows committed with this checkpoint --------");
                    rows = 0;
                }
            }

            @Override
            public void close() {}
        };
    }
}
