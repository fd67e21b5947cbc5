package org.flinkss.runtime.table.delta;

import java.util.Map;
import java.util.Objects;

/**
 * What a commit's {@code commitInfo} says it did, as Delta's own commands write it: the operation
 * ({@code MERGE}), its parameters ({@code predicate}, ...) and its metrics ({@code
 * numTargetRowsInserted}, ...), which {@code DESCRIBE HISTORY} shows. Delta Kernel 4.0.0 writes
 * only its own few operations and no metrics; a commit made with one of these carries it instead.
 *
 * @param parameters values as Delta writes them, each a string (a JSON text where Delta's is one)
 * @param metrics counts and times, each a decimal string, as Delta writes them
 */
public record OperationInfo(
        String operation, Map<String, String> parameters, Map<String, String> metrics) {

    public OperationInfo {
        Objects.requireNonNull(operation, "operation");
        parameters = Map.copyOf(parameters);
        metrics = Map.copyOf(metrics);
    }
}
