package org.flinkss.runtime.table.delta;

import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import io.delta.kernel.Operation;
import io.delta.kernel.Table;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.KernelException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Why {@link FeedLog} writes the log of a table with the change data feed itself: Delta Kernel
 * 4.0.0 refuses to build a transaction on such a table, and to create one. When a Kernel upgrade
 * makes this test fail, Kernel writes these tables (then {@code cdc} actions are the question).
 */
class KernelChangeFeedRefusalTest {

    private static final RowType ROW_TYPE =
            RowType.of(new LogicalType[] {new BigIntType()}, new String[] {"event_id"});

    @TempDir java.nio.file.Path dir;

    private final Engine engine = DeltaStorage.flink().engine();

    @Test
    void kernelRefusesToWriteATableWithTheFeedThatFeedLogCreated() {
        String path = dir.resolve("t").toUri().toString();
        DeltaTable table = DeltaTable.forPath(path);
        table.create(ROW_TYPE, Map.of(ChangeDataFeed.PROPERTY, "true"));
        assertThat(table.hasChangeFeed()).isTrue();
        assertThat(
                        KernelInternals.protocolVersions(
                                Table.forPath(engine, path).getLatestSnapshot(engine)))
                .containsExactly(1, 4);

        assertThatThrownBy(
                        () ->
                                Table.forPath(engine, path)
                                        .createTransactionBuilder(engine, "test", Operation.WRITE)
                                        .build(engine))
                .isInstanceOf(KernelException.class)
                .hasMessageContaining("changeDataFeed");
    }

    @Test
    void kernelRefusesToCreateATableWithTheFeed() {
        String path = dir.resolve("u").toUri().toString();

        assertThatThrownBy(
                        () ->
                                Table.forPath(engine, path)
                                        .createTransactionBuilder(
                                                engine, "test", Operation.CREATE_TABLE)
                                        .withSchema(engine, DeltaSchema.toDelta(ROW_TYPE))
                                        .withTableProperties(
                                                engine, Map.of(ChangeDataFeed.PROPERTY, "true"))
                                        .build(engine))
                .isInstanceOf(KernelException.class)
                .hasMessageContaining("changeDataFeed");
    }
}
