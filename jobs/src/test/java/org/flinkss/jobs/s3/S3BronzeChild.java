package org.flinkss.jobs.s3;

import org.apache.flink.configuration.Configuration;

import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.testing.S3TestServer;

import java.time.Duration;

/**
 * Bronze on an S3 base in a JVM of its own, for tests that kill it: {@code <endpoint> <base>}. One
 * file a batch, a checkpoint every 300 ms, and a lease of 5 s, so that the run after a SIGKILL
 * takes over the dead run's lease within seconds; until then it is refused naming the holder, and
 * tries again.
 */
public final class S3BronzeChild {

    private S3BronzeChild() {}

    public static void main(String[] args) throws Exception {
        Configuration conf = new Configuration();
        conf.setString("s3.endpoint", args[0]);
        conf.setString("s3.path.style.access", "true");
        conf.setString("s3.access-key", S3TestServer.ACCESS_KEY);
        conf.setString("s3.secret-key", S3TestServer.SECRET_KEY);
        Storage.initialize(conf);
        RunOptions options =
                RunOptions.builder()
                        .base(Storage.location(args[1]))
                        .maxFilesPerTrigger(1)
                        .checkpointInterval(Duration.ofMillis(300))
                        .leaseTime(Duration.ofSeconds(5))
                        .printProgress(false)
                        .build();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try {
                QueryRunner.Result result =
                        QueryRunner.run(new BronzeQuery(options.events(), false), options);
                System.out.println("bronze: " + result.numInputRows() + " rows");
                System.exit(0);
            } catch (QueryException e) {
                if (!e.getMessage().contains("is already running")
                        || System.nanoTime() > deadline) {
                    throw e;
                }
                System.out.println("waiting for the dead run's lease: " + e.getMessage());
                Thread.sleep(1000);
            }
        }
    }
}
