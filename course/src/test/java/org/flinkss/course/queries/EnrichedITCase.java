package org.flinkss.course.queries;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.tables.Customers;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.table.TableRewriter;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Topic 11.09: the stream-static left join, with the static side read fresh for each batch. */
class EnrichedITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path base;

    @ParameterizedTest
    @EnumSource(Api.class)
    void laterRowsCarryTheReplacedCountriesAndEarlierRowsKeepTheirs(Api api) {
        RunOptions options = BronzeITCase.options(base, 2);
        Warehouse warehouse = new Warehouse(options.warehouse());

        // Step 1: customers 1..49 in two countries (50 missing: a left join keeps its rows, with
        // null).
        Customers.land(warehouse, List.of("US", "DE"));
        new TableRewriter(warehouse, Customers.TABLE)
                .replace(row -> row.getInt(0) == 50, List.of());
        EventFiles.writeBatch(options.events(), 1, EventGenerator.events(0, 500));
        QueryRunner.run(new BronzeQuery(options.events()), options);
        QueryRunner.run(new EnrichedQuery(options.warehouse(), api), options);

        // Step 2: replace customers, land batch 2, run again.
        Customers.land(warehouse, List.of("FR"));
        EventFiles.writeBatch(options.events(), 2, EventGenerator.events(500, 500));
        QueryRunner.run(new BronzeQuery(options.events()), options);
        QueryRunner.run(new EnrichedQuery(options.warehouse(), api), options);

        List<List<Object>> rows = warehouse.sortedValues(EnrichedQuery.TABLE);
        assertThat(rows).hasSize(1000);
        for (List<Object> row : rows) {
            long id = (Long) row.get(0);
            int user = (Integer) row.get(1);
            Object country = row.get(5);
            if (id < 500) {
                assertThat(country)
                        .as("event %d of user %d", id, user)
                        .isEqualTo(user == 50 ? null : (user % 2 == 1 ? "US" : "DE"));
            } else {
                assertThat(country).as("event %d", id).isEqualTo("FR");
            }
        }
        assertThat(rows)
                .extracting(r -> r.subList(0, 5))
                .containsExactlyElementsOf(warehouse.sortedValues(BronzeQuery.TABLE));
    }
}
