package org.flinkss.course.queries;

import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.table.delta.DeltaSchema;

/**
 * A class of the course's queries that breaks the public-API rule on purpose (it shapes a Delta
 * schema itself, the table layer's business): {@code ArchitectureTest} shows that the rule catches
 * it. Test code only; the rule is checked on main classes.
 */
final class QueryReachingBehindTheApi {

    private QueryReachingBehindTheApi() {}

    static RowType micros(RowType row) {
        return DeltaSchema.withMicros(row);
    }
}
