package org.flinkss.runtime.progress;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

import java.util.List;

/**
 * What one operator subtask reports at one checkpoint: the progress protocol between a run's
 * operators (on the TaskManagers) and its driver. Operators write fragments with {@link
 * Fragments#write}; once the checkpoint has completed, the {@link ProgressTracker} merges those of
 * every operator into Spark's progress objects. Each kind is one record type, written and read by
 * the same code.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "kind")
@JsonSubTypes({
    @JsonSubTypes.Type(value = Fragment.SourceBatches.class, name = "source"),
    @JsonSubTypes.Type(value = Fragment.SinkRows.class, name = "sink"),
    @JsonSubTypes.Type(value = Fragment.StateRows.class, name = "state"),
    @JsonSubTypes.Type(value = Fragment.DroppedRows.class, name = "dropped"),
    @JsonSubTypes.Type(value = Fragment.ExpectationRows.class, name = "expectation")
})
public sealed interface Fragment {

    /** The file of this fragment in its checkpoint's folder: one per operator subtask. */
    String fileName();

    /**
     * The batches a source sealed and that no completed checkpoint carried yet: a batch is reported
     * again with the next checkpoint until one completes.
     */
    record SourceBatches(String source, List<BatchSummary> batches) implements Fragment {
        @Override
        public String fileName() {
            return "source-" + source + ".json";
        }
    }

    /**
     * Rows one sink subtask wrote since the last checkpoint. A checkpoint's sink counts are whole
     * when all {@code subtasks} of every sink have reported.
     */
    record SinkRows(String sink, int subtask, int subtasks, long rows) implements Fragment {
        @Override
        public String fileName() {
            return "sink-" + sink + "-" + subtask + ".json";
        }
    }

    /** Spark's state metrics of one stateful operator subtask: rows held, rows changed. */
    record StateRows(String operator, int subtask, long numRowsTotal, long numRowsUpdated)
            implements Fragment {
        @Override
        public String fileName() {
            return "state-" + operator + "-" + subtask + ".json";
        }
    }

    /**
     * Rows a stateful operator subtask dropped because of the watermark since the last checkpoint.
     */
    record DroppedRows(String operator, int subtask, long rows) implements Fragment {
        @Override
        public String fileName() {
            return "dropped-" + operator + "-" + subtask + ".json";
        }
    }

    /**
     * Rows one subtask checked against an expectation of a table since the last checkpoint: how
     * many passed and how many failed (Lakeflow's {@code passed_records}, {@code failed_records}).
     */
    record ExpectationRows(
            String table, String rule, String action, int subtask, long passed, long failed)
            implements Fragment {
        @Override
        public String fileName() {
            return "expectation-" + table + "-" + rule + "-" + subtask + ".json";
        }
    }
}
