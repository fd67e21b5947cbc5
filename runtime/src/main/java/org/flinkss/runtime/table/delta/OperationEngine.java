package org.flinkss.runtime.table.delta;

import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.ExpressionHandler;
import io.delta.kernel.engine.FileSystemClient;
import io.delta.kernel.engine.JsonHandler;
import io.delta.kernel.engine.MetricsReporter;
import io.delta.kernel.engine.ParquetHandler;
import io.delta.kernel.expressions.Predicate;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The engine of one commit that says what it did ({@link OperationInfo}): Kernel's engine, whose
 * JSON handler, as it writes the commit's log entry, puts the operation, its parameters and metrics
 * into the {@code commitInfo} action Kernel made. Kernel 4.0.0 has no other way to name an
 * operation outside its enum ({@code MERGE} is not in it) or to record metrics; everything else
 * Kernel writes and checks is left as it is. The same seam adds the project's own parameters to
 * every commit of a table ({@link DeltaTable#recordInCommits}).
 */
final class OperationEngine implements Engine {

    private final Engine engine;
    private final UnaryOperator<Row> rewrite;

    OperationEngine(Engine engine, OperationInfo info) {
        this(engine, row -> KernelInternals.withOperation(row, info));
    }

    /**
     * @param rewrite what becomes of each action row of a log entry written (the rows that are no
     *     {@code commitInfo} returned as they are)
     */
    OperationEngine(Engine engine, UnaryOperator<Row> rewrite) {
        this.engine = engine;
        this.rewrite = rewrite;
    }

    @Override
    public ExpressionHandler getExpressionHandler() {
        return engine.getExpressionHandler();
    }

    @Override
    public JsonHandler getJsonHandler() {
        JsonHandler json = engine.getJsonHandler();
        return new JsonHandler() {
            @Override
            public ColumnarBatch parseJson(
                    ColumnVector jsonStringVector,
                    StructType outputSchema,
                    Optional<ColumnVector> selectionVector) {
                return json.parseJson(jsonStringVector, outputSchema, selectionVector);
            }

            @Override
            public CloseableIterator<ColumnarBatch> readJsonFiles(
                    CloseableIterator<FileStatus> fileIter,
                    StructType physicalSchema,
                    Optional<Predicate> predicate)
                    throws IOException {
                return json.readJsonFiles(fileIter, physicalSchema, predicate);
            }

            @Override
            public void writeJsonFileAtomically(
                    String filePath, CloseableIterator<Row> data, boolean overwrite)
                    throws IOException {
                json.writeJsonFileAtomically(filePath, data.map(rewrite::apply), overwrite);
            }
        };
    }

    @Override
    public FileSystemClient getFileSystemClient() {
        return engine.getFileSystemClient();
    }

    @Override
    public ParquetHandler getParquetHandler() {
        return engine.getParquetHandler();
    }

    @Override
    public List<MetricsReporter> getMetricsReporters() {
        return engine.getMetricsReporters();
    }
}
