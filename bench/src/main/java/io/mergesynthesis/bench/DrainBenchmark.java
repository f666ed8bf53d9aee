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

    /** A timed drain: its speed, and the CPU it cost when that was measured (else null). */
    record Drained(double perSecond, CpuTime.Spent cpu) {
    }

    /**
     * Seeds {@code rows} conflicts on hold, releases them and times the drain.
     *
     * @return conflicts per second
     * @throws DrainWatch.Stalled when the replicas stop finishing conflicts
     */
    double drain(String batch, int rows) throws SQLException, DrainWatch.Stalled {
        return drain(batch, rows, null).perSecond();
    }

    /** As {@link #drain(String, int)}, with the CPU that {@code cpu} sees from the release to the end. */
    Drained drain(String batch, int rows, CpuTime cpu) throws SQLException, DrainWatch.Stalled {
        return drain(batch, rows, cpu, null);
    }

    /**
     * As {@link #drain(String, int, CpuTime)}, with {@code statements} (when not null) counting from the release,
     * so that the rows' seeding is not in them.
     */
    Drained drain(String batch, int rows, CpuTime cpu, StatementCosts statements)
            throws SQLException, DrainWatch.Stalled {
        long doneBefore = seeder.count("done");
        seeder.pendingOnHold(batch, rows);
        db.settle();
        if (statements != null) {
            statements.reset();
        }
        CpuTime.Window window = cpu == null ? null : cpu.start();
        DrainRelease.releaseAll(db);
        long start = System.nanoTime();
        double seconds = DrainWatch.awaitDrained(db, start, STALL_LIMIT);
        CpuTime.Spent spent = window == null ? null : window.spent();
        long finished = seeder.count("done") - doneBefore;
        if (finished != rows) {
            throw new IllegalStateException("drained " + rows + " conflicts but " + finished
                    + " are done (the rest were marked or failed)");
        }
        return new Drained(rows / seconds, spent);
    }
}
