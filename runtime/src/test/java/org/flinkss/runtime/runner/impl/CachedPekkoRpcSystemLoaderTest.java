package org.flinkss.runtime.runner.impl;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.rpc.RpcService;
import org.apache.flink.runtime.rpc.RpcSystem;
import org.apache.flink.runtime.rpc.RpcSystemLoader;

import org.junit.jupiter.api.Test;

import org.flinkss.runtime.storage.impl.NestedJarCache;

import java.nio.file.Files;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.StreamSupport;

import static org.assertj.core.api.Assertions.assertThat;

/** Flink's Pekko RPC system, loaded from the kept copy of its jar, comes first and runs. */
class CachedPekkoRpcSystemLoaderTest {

    @Test
    void flinkLoadsThisLoaderFirstAndItsRpcSystemStartsAService() throws Exception {
        List<RpcSystemLoader> loaders =
                StreamSupport.stream(ServiceLoader.load(RpcSystemLoader.class).spliterator(), false)
                        .sorted(Comparator.comparingInt(RpcSystemLoader::getLoadPriority))
                        .toList();
        assertThat(loaders).first().isInstanceOf(CachedPekkoRpcSystemLoader.class);
        assertThat(loaders)
                .extracting(l -> l.getClass().getSimpleName())
                .contains("PekkoRpcSystemLoader");

        Configuration conf = new Configuration();
        try (RpcSystem rpc = new CachedPekkoRpcSystemLoader().loadRpcSystem(conf)) {
            RpcService service = rpc.localServiceBuilder(conf).createAndStart();
            try {
                assertThat(service.getAddress()).isNotNull();
            } finally {
                service.closeAsync().get();
            }
        }
        try (var copies = Files.list(NestedJarCache.inTemporaryFolder().folder())) {
            assertThat(copies.map(p -> p.getFileName().toString()))
                    .anyMatch(n -> n.startsWith("flink-rpc-akka-") && n.endsWith(".jar"));
        }
    }
}
