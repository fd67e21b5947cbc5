package org.flinkss.jobs.docs;

import org.junit.jupiter.api.Test;

import org.flinkss.testutils.ProjectScripts;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which {@code ports} pages {@link DocPortsCommandsITCase} runs beside the others: those that start
 * a Kafka broker and nothing on Flink's or S3Proxy's ports.
 */
class DocPortsPagesBesideTest {

    @Test
    void theKafkaPageRunsBesideTheOthersAndThePagesWithFlinkOrS3DoNot() {
        Map<String, Boolean> beside = new LinkedHashMap<>();
        Map<Path, List<DocBlocks.Block>> pages = new LinkedHashMap<>();
        for (DocBlocks.Block block : DocBlocks.all(DocBlocks.Kind.PORTS)) {
            pages.computeIfAbsent(block.page(), p -> new ArrayList<>()).add(block);
        }
        pages.forEach(
                (page, blocks) ->
                        beside.put(
                                ProjectScripts.ROOT.relativize(page).toString(),
                                DocPortsCommandsITCase.onlyKafka(blocks)));

        assertThat(beside)
                .containsEntry("docs/kafka.md", true)
                .containsEntry("docs/cluster.md", false)
                .containsEntry("docs/monitoring.md", false)
                .containsEntry("docs/object-storage.md", false);
    }

    @Test
    void aKafkaPageThatAlsoStartsAClusterS3OrTheWebUiRunsWithTheOthers() {
        assertThat(DocPortsCommandsITCase.onlyKafka(page("scripts/kafka start", "$J run bronze")))
                .isTrue();
        assertThat(DocPortsCommandsITCase.onlyKafka(page("$J run bronze"))).isFalse();
        for (String other :
                List.of(
                        "scripts/cluster start",
                        "scripts/s3 start",
                        "scripts/flink run -m 127.0.0.1:8081 x.jar",
                        "$J run win5 --web-ui",
                        "$J run bronze --base s3://flinkss/demo",
                        "curl http://127.0.0.1:9000/flinkss")) {
            assertThat(DocPortsCommandsITCase.onlyKafka(page("scripts/kafka start", other)))
                    .as(other)
                    .isFalse();
        }
    }

    private static List<DocBlocks.Block> page(String... lines) {
        return List.of(
                new DocBlocks.Block(Path.of("docs/x.md"), 1, DocBlocks.Kind.PORTS, List.of(lines)));
    }
}
