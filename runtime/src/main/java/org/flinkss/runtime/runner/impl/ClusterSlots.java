package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.ReadableConfig;

import com.fasterxml.jackson.databind.JsonNode;

import org.flinkss.runtime.QueryException;

import javax.annotation.Nullable;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;

/**
 * Before a job goes to a cluster ({@code flink run}): are there task slots enough for its
 * parallelism? A job that needs more than the cluster has free waits for them, by default five
 * minutes, then fails over in a loop; this says so at once instead, over the JobManager's REST API
 * ({@code GET /overview}).
 */
@Internal
public final class ClusterSlots {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private ClusterSlots() {}

    /**
     * Fails with what to do if the cluster has fewer free slots than the job's parallelism; says
     * nothing if the parallelism or the cluster's slots cannot be known.
     *
     * @param parallelism the run's {@code --parallelism}, or null for the client's {@code -p}
     */
    public static void check(ReadableConfig client, @Nullable Integer parallelism, String query) {
        Integer needed =
                parallelism != null
                        ? parallelism
                        : client.getOptional(CoreOptions.DEFAULT_PARALLELISM).orElse(null);
        if (needed == null) {
            return;
        }
        URI address = JobManagerRest.of(client);
        JsonNode overview;
        try {
            overview = JobManagerRest.get(address, "/overview", TIMEOUT).orElse(null);
        } catch (IOException e) {
            return; // The submission itself will say what is wrong with the address.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        if (overview == null || !overview.has("slots-available")) {
            return;
        }
        check(
                overview.path("slots-total").asInt(),
                overview.path("slots-available").asInt(),
                needed,
                query,
                address.toString());
    }

    /** The rule, on the numbers the JobManager gave. */
    static void check(int total, int available, int needed, String query, String address) {
        if (available >= needed) {
            return;
        }
        throw new QueryException(
                "query '"
                        + query
                        + "' runs at parallelism "
                        + needed
                        + ", which needs "
                        + needed
                        + " task slots, but the cluster at "
                        + address
                        + " has "
                        + available
                        + " free of "
                        + total
                        + ". Start more TaskManagers (or give them more slots:"
                        + " taskmanager.numberOfTaskSlots), stop the jobs that hold them, or run"
                        + " with --parallelism "
                        + Math.max(1, available)
                        + " or less.");
    }
}
