package io.mergesynthesis.bench;

import java.sql.SQLException;
import java.time.Duration;

/**
 * Drain throughput of the product itself: replicas already up and healthy, N conflicts made claimable in one
 * commit, and the clock stopped when none is left waiting. The replicas are the caller's, so the same ones can
 * drain several times (the scale curve) without paying for start-up in the figure.
 */
final class DrainBenchmark {

    private static final Duration STALL_LIMIT = Duration.ofSeconds(30);

    private final BenchDatabase db;
    private final Seeder seeder;

    DrainBenchmark(BenchDatabase db, Seeder seeder) {
        this.db = db;
        this.seeder = seeder;
    }

    /**
     * Seeds {@code rows} conflicts on hold, releases them and times the drain.
     *
     * @return conflicts per second
     * @throws DrainWatch.Stalled when the replicas stop finishing conflicts
     */
    double drain(String batch, int rows) throws SQLException, DrainWatch.Stalled {
        long doneBefore = seeder.count("done");
        seeder.pendingOnHold(batch, rows);
        db.settle();
        DrainRelease.releaseAll(db);
        long start = System.nanoTime();
        double seconds = DrainWatch.awaitDrained(db, start, STALL_LIMIT);
        long finished = seeder.count("done") - doneBefore;
        if (finished != rows) {
            throw new IllegalStateException("drained " + rows + " conflicts but " + finished
                    + " are done (the rest were marked or failed)");
        }
        return rows / seconds;
    }
}
