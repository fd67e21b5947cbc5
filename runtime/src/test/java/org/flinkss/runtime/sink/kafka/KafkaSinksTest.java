package org.flinkss.runtime.sink.kafka;

import org.apache.flink.core.fs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.progress.RunScope;

import java.io.File;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The transactional id prefix of a query's Kafka sink stays what earlier versions derived from the
 * checkpoint: a prefix that changed would leave the transactions of a killed run open, and the
 * broker would hold the topic's readers back until they time out.
 */
class KafkaSinksTest {

    // A local folder: the prefix hashes its absolute path as java.io names it.
    @TempDir File base;

    @Test
    void thePrefixOfARunIsTheCheckpointFoldersOrItsUri() {
        RunScope local =
                new RunScope(
                        CheckpointLayout.of(new Path(base.toURI()), "bronze-to-kafka"), "run-1");
        String folder = new File(new File(base, "_cp"), "bronze-to-kafka").getAbsolutePath();
        assertThat(KafkaSinks.transactionalIdPrefix("bronze-to-kafka", local))
                .isEqualTo("flinkss-bronze-to-kafka-" + String.format("%08x", folder.hashCode()))
                .matches("flinkss-bronze-to-kafka-[0-9a-f]{8}");

        RunScope onS3 =
                new RunScope(
                        CheckpointLayout.of(new Path("s3://flinkss/a"), "bronze-to-kafka"),
                        "run-1");
        assertThat(KafkaSinks.transactionalIdPrefix("bronze-to-kafka", onS3))
                .isEqualTo(
                        "flinkss-bronze-to-kafka-"
                                + String.format(
                                        "%08x", "s3://flinkss/a/_cp/bronze-to-kafka".hashCode()));
    }
}
