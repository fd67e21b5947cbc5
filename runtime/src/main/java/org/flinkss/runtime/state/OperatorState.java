package org.flinkss.runtime.state;

import javax.annotation.Nullable;

/**
 * One operator's state in a restore point's {@code _metadata}, which needs no descriptors: what
 * every query can show, whatever its API.
 *
 * @param operatorId Flink's operator id (the hash of its uid), hex
 * @param uid the uid of the query that hashes to it, null if none of the known ones does
 * @param bytes the size of the operator's state files in this restore point (all subtasks)
 * @param parallelism the operator's parallelism when the state was taken
 * @param keyed whether it holds keyed state (else only operator state)
 */
public record OperatorState(
        String operatorId, @Nullable String uid, long bytes, int parallelism, boolean keyed) {}
