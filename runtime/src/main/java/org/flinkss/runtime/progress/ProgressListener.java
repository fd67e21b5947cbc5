package org.flinkss.runtime.progress;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Receives each batch's progress as it is committed: Spark's {@code StreamingQueryListener}. The
 * object has Spark's {@code lastProgress} field names.
 */
@FunctionalInterface
public interface ProgressListener {

    void onProgress(ObjectNode progress);

    /**
     * What a source of an availableNow run is to read, before its first batch's progress (Spark has
     * no such event). Once per source and run; a source that cannot tell says nothing.
     */
    default void onPlan(SourcePlan plan) {}
}
