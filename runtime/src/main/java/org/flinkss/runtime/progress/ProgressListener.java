package org.flinkss.runtime.progress;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Receives each batch's progress as it is committed: Spark's {@code StreamingQueryListener}. The
 * object has Spark's {@code lastProgress} field names.
 */
@FunctionalInterface
public interface ProgressListener {

    void onProgress(ObjectNode progress);
}
