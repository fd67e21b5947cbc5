package org.flinkss.jobs;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import org.flinkss.runtime.QueryException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A full disk is said in one line naming the folder and that nothing committed was lost (issue 38
 * point 6: 30 to 60 frames of Java exceptions before). The free space is the disk's own; here it is
 * handed in, as a full disk cannot be made without mounting one.
 */
class DiskFullTest {

    private static final Path BASE = Path.of("/data/fw");
    private static final UncheckedIOException NO_SPACE =
            new UncheckedIOException(
                    "cannot write file:/data/fw/_cp/bronze/runs/r/job.json",
                    new IOException("No space left on device"));

    @Test
    void aWriteThatFailsOnAFullDiskIsOneLineNamingTheDisk() {
        DiskFull full = new DiskFull(folder -> folder.equals(BASE) ? 4096 : Long.MAX_VALUE);

        assertThat(full.explain(NO_SPACE, List.of(Path.of("/elsewhere"), BASE)))
                .hasValue(
                        "the disk of /data/fw is full (4 KB free): the command stopped; nothing"
                            + " committed was lost (each table keeps its last committed batch, and"
                            + " the next run goes on from it). Free space on that disk and run"
                            + " again");
        // A run that gave up after its restarts, the write failure among its causes.
        assertThat(
                        full.explain(
                                new QueryException("query 'bronze' failed", NO_SPACE),
                                List.of(BASE)))
                .isPresent();
    }

    @Test
    void otherFailuresOrADiskWithRoomAreNotCalledDiskFull() {
        DiskFull roomy = new DiskFull(folder -> DiskFull.FULL);
        DiskFull full = new DiskFull(folder -> 0);

        assertThat(roomy.explain(NO_SPACE, List.of(BASE))).isEmpty();
        assertThat(full.explain(new QueryException("no table 'x'"), List.of(BASE))).isEmpty();
    }

    @Test
    void aPseudoFileSystemWithNoSizeIsNeverCalledFull() {
        // /sys has no size (0 bytes free of 0): a --base there cannot be written for another
        // reason, which the command says itself (BaseOptionTest), not "the disk is full".
        Path sys = Path.of("/sys");
        assumeTrue(java.nio.file.Files.isDirectory(sys), "no /sys here");
        assertThat(DiskFull.usableSpace(sys.resolve("flinkss-base"))).isEqualTo(Long.MAX_VALUE);
        assertThat(DiskFull.usableSpace(Path.of(System.getProperty("java.io.tmpdir"))))
                .isLessThan(Long.MAX_VALUE);
    }

    @Test
    void theFoldersAreTheCommandsBaseAndWarehouseAndTheTemporaryFolder() {
        CommandLine cli = Main.commandLine("table", "count", "t");
        CommandLine.ParseResult parsed =
                cli.parseArgs(
                        "table", "count", "t", "--base", "/data/fw", "--warehouse", "s3://b/w");

        assertThat(DiskFull.folders(parsed))
                .containsExactly(BASE, Path.of(System.getProperty("java.io.tmpdir")));
    }
}
