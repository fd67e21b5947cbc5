package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.Path;

import org.junit.jupiter.api.Test;

import org.flinkss.runtime.storage.ListedFile;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which log listings {@link FlinkFileIO} takes as cut short and lists again. CI on e5387a2:
 * DeltaS3ITCase's racing writers got "checksum file's version should be less than or equal to
 * logSegment's version" from Kernel, after an S3Proxy listing that ended between a version's {@code
 * .crc} and its {@code .json} (they sort in that order, and the checksum is written after the
 * commit).
 */
class FlinkFileIOListingTest {

    private static List<ListedFile> log(String... names) {
        List<ListedFile> files = new ArrayList<>();
        for (String name : names) {
            files.add(new ListedFile(new Path("s3://b/t/_delta_log", name), 10, 0));
        }
        return files;
    }

    @Test
    void aChecksumBeyondTheLastCommitMeansTheListingWasCut() {
        assertThat(
                        FlinkFileIO.cutAfterItsLastCommit(
                                log(
                                        "00000000000000000004.crc",
                                        "00000000000000000004.json",
                                        "00000000000000000005.crc")))
                .isTrue();
    }

    @Test
    void aCheckpointBeyondTheLastCommitMeansTheListingWasCut() {
        assertThat(
                        FlinkFileIO.cutAfterItsLastCommit(
                                log(
                                        "00000000000000000009.json",
                                        "00000000000000000010.checkpoint.parquet")))
                .isTrue();
    }

    @Test
    void aWholeLogIsNotCut() {
        assertThat(
                        FlinkFileIO.cutAfterItsLastCommit(
                                log(
                                        "00000000000000000004.crc",
                                        "00000000000000000004.json",
                                        "00000000000000000005.checkpoint.parquet",
                                        "00000000000000000005.crc",
                                        "00000000000000000005.json",
                                        "00000000000000000006.json",
                                        "_last_checkpoint")))
                .isFalse();
    }

    @Test
    void aCommitWithoutItsChecksumYetIsNotCut() {
        // The newest commit's checksum is written after it (on the post-commit executor).
        assertThat(
                        FlinkFileIO.cutAfterItsLastCommit(
                                log(
                                        "00000000000000000004.crc",
                                        "00000000000000000004.json",
                                        "00000000000000000005.json")))
                .isFalse();
    }

    @Test
    void aLogCompactionIsNeitherChecksumNorCheckpoint() {
        assertThat(
                        FlinkFileIO.cutAfterItsLastCommit(
                                log(
                                        "00000000000000000004.json",
                                        "00000000000000000004.00000000000000000007.compacted.json")))
                .isFalse();
    }
}
