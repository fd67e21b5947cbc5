package org.flinkss.course.kafka;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.flinkss.course.testing.KafkaTestBroker;
import org.flinkss.runtime.source.SplitRecordReader;
import org.flinkss.runtime.source.kafka.KafkaRecord;
import org.flinkss.runtime.source.kafka.KafkaRecordFormat;
import org.flinkss.runtime.source.kafka.KafkaSourceOptions;
import org.flinkss.runtime.source.kafka.KafkaSplit;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A reader's splits of one partition, one after the other, on a real broker: the Kafka source keeps
 * one consumer per partition from split to split (a real-time run's steps) and moves it to each
 * split's start, so its last poll has usually fetched beyond the split before. Each split reads
 * exactly its offsets, whether it reads on, starts earlier (a job restored from a checkpoint) or
 * later, or follows a split closed before its end.
 */
class KafkaSplitReadingITCase {

    @RegisterExtension static final KafkaTestBroker.PerClass KAFKA = new KafkaTestBroker.PerClass();

    private static final String TOPIC = "split-reading";

    @Test
    void consecutiveSplitsOfAPartitionReadEachOffsetOnceWhateverTheConsumerFetchedAhead()
            throws Exception {
        // Step 1: 100 records in one partition, offsets 0 to 99.
        KafkaTestBroker broker = KAFKA.broker();
        broker.createTopic(TOPIC, 1);
        broker.produceEvents(TOPIC, 0, 100);
        KafkaRecordFormat format =
                new KafkaRecordFormat(
                        KafkaSourceOptions.builder()
                                .bootstrapServers(broker.bootstrapServers())
                                .subscribe(TOPIC)
                                .build(),
                        "split-reading-test");
        try {
            // Step 2: ranges that continue each other; the first poll fetches far beyond offset 3.
            assertThat(read(format, 0, 3, 1)).containsExactly(0L, 1L, 2L);
            assertThat(read(format, 3, 10, 2)).containsExactlyElementsOf(range(3, 10));
            assertThat(read(format, 10, 11, 3)).containsExactly(10L);
            assertThat(read(format, 11, 60, 4)).containsExactlyElementsOf(range(11, 60));
            // Step 3: an empty split leaves the consumer where it was.
            assertThat(read(format, 60, 60, 5)).isEmpty();
            assertThat(read(format, 60, 61, 6)).containsExactly(60L);
            // Step 4: back (a job restored from a checkpoint) and ahead (a skipped range).
            assertThat(read(format, 20, 25, 7)).containsExactlyElementsOf(range(20, 25));
            assertThat(read(format, 90, 100, 8)).containsExactlyElementsOf(range(90, 100));
            assertThat(read(format, 50, 52, 9)).containsExactly(50L, 51L);
            // Step 5: a split closed before its end (a cancelled task) is not read on from.
            SplitRecordReader<KafkaRecord> cut =
                    format.open(new KafkaSplit(TOPIC, 0, 52, 70, 10, 0));
            assertThat(cut.next().offset).isEqualTo(52L);
            assertThat(cut.next().offset).isEqualTo(53L);
            cut.close();
            assertThat(read(format, 70, 72, 11)).containsExactly(70L, 71L);
            assertThat(read(format, 54, 56, 12)).containsExactly(54L, 55L);
            assertThat(read(format, 56, 100, 13)).containsExactlyElementsOf(range(56, 100));
        } finally {
            format.close();
        }
    }

    private static List<Long> read(KafkaRecordFormat format, long from, long to, long batchId)
            throws Exception {
        List<Long> offsets = new ArrayList<>();
        SplitRecordReader<KafkaRecord> reader =
                format.open(new KafkaSplit(TOPIC, 0, from, to, batchId, 0));
        for (KafkaRecord r = reader.next(); r != null; r = reader.next()) {
            offsets.add(r.offset);
        }
        reader.close();
        return offsets;
    }

    private static List<Long> range(long from, long to) {
        return LongStream.range(from, to).boxed().toList();
    }
}
