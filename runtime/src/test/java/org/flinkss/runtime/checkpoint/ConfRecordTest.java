package org.flinkss.runtime.checkpoint;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.time.WatermarkPolicy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The watermark policy kept in a checkpoint's metadata.json, as Spark keeps it in its conf. */
class ConfRecordTest {

    private static final QueryIdentity JOIN =
            new QueryIdentity(
                    "view-then-buy",
                    List.of("DeltaSource[${base}/warehouse/events_bronze]"),
                    List.of("view_then_buy"),
                    List.of("join[datastream]"));

    @TempDir Path dir;

    private static QueryIdentity under(WatermarkPolicy policy) {
        return JOIN.withConf(Map.of(WatermarkPolicy.SPARK_CONF, policy.text()));
    }

    private CheckpointLayout layout() {
        return new CheckpointLayout(Storage.location(dir.resolve("view-then-buy").toFile()));
    }

    private String metadata() throws Exception {
        return Files.readString(Storage.localFile(layout().metadata(), "a test file").toPath());
    }

    @Test
    void thePolicyIsRecordedUnderSparksKeyAndARunWithAnotherIsRefusedNamingBothAndReset()
            throws Exception {
        IdentityStore store = new IdentityStore(layout());
        String id = store.claim(under(WatermarkPolicy.MAX));
        assertThat(metadata())
                .contains("\"conf\":{\"spark.sql.streaming.multipleWatermarkPolicy\":\"max\"}");
        String before = metadata();

        assertThatThrownBy(() -> store.claim(under(WatermarkPolicy.MIN)))
                .isInstanceOf(QueryException.class)
                .hasMessageContaining("query 'view-then-buy' refused: its checkpoint " + layout())
                .hasMessageContaining(
                        "was made with --watermark-policy max, but this run asks for"
                                + " --watermark-policy min")
                .hasMessageContaining("'reset view-then-buy'");
        assertThat(store.check(under(WatermarkPolicy.MIN))).isPresent();
        assertThat(metadata()).isEqualTo(before);
        assertThat(store.claim(under(WatermarkPolicy.MAX))).isEqualTo(id);
    }

    @Test
    void aCheckpointMadeBeforeThePolicyWasRecordedReadsAsMinAndRecordsItAtTheNextRun()
            throws Exception {
        IdentityStore store = new IdentityStore(layout());
        String id = store.claim(JOIN); // as every version before the option wrote it
        assertThat(metadata()).doesNotContain("conf");

        assertThatThrownBy(() -> store.claim(under(WatermarkPolicy.MAX)))
                .isInstanceOf(QueryException.class)
                .hasMessageContaining(
                        "was made with --watermark-policy min (it records none: made before the"
                                + " option existed)");
        assertThat(store.claim(under(WatermarkPolicy.MIN))).isEqualTo(id);
        assertThat(metadata())
                .contains("\"conf\":{\"spark.sql.streaming.multipleWatermarkPolicy\":\"min\"}");
    }

    @Test
    void aQueryThatRecordsNoPolicyIsNotComparedOnIt() {
        IdentityStore store = new IdentityStore(layout());
        store.claim(under(WatermarkPolicy.MAX));

        assertThat(store.check(JOIN)).isEmpty();
    }
}
