package org.flinkss.course.kafka;

import org.apache.flink.core.fs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.progress.RunScope;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The transactional id prefix of a query's Kafka sink stays what earlier versions derived from the
 * checkpoint: a prefix that changed would leave the transactions of a killed run open, and the
 * broker would hold the topic's readers back until they time out.
 */
class EventKafkaSinkTest {

    @TempDir java.nio.file.Path base;

    @Test
    void thePrefixOfARunIsTheCheckpointFoldersOrItsUri() {
        RunScope local = new RunScope(CheckpointLayout.of(base, "bronze-to-kafka"), "run-1");
        assertThat(EventKafkaSink.transactionalIdPrefix("bronze-to-kafka", local))
                .isEqualTo(
                        EventKafkaSink.transactionalIdPrefix(
                                "bronze-to-kafka", base.resolve("_cp").resolve("bronze-to-kafka")))
                .matches("flinkss-bronze-to-kafka-[0-9a-f]{8}");

        RunScope onS3 =
                new RunScope(
                        CheckpointLayout.of(new Path("s3://flinkss/a"), "bronze-to-kafka"),
                        "run-1");
        assertThat(EventKafkaSink.transactionalIdPrefix("bronze-to-kafka", onS3))
                .isEqualTo(
                        "flinkss-bronze-to-kafka-"
                                + String.format(
                                        "%08x", "s3://flinkss/a/_cp/bronze-to-kafka".hashCode()));
    }
}
