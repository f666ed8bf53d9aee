package io.mergesynthesis.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The database's ceiling for this workload: {@link PoolStatements} replayed by plain JDBC threads, one
 * connection each, with no framework, no synthesizer and no queue between claim and work. Whatever the pool
 * adds on top of these statements shows up as the gap between its throughput and this one's. Each thread batches
 * as the pool does: it claims {@link PoolStatements#CLAIM_BATCH} rows, reads them all back in one tenant
 * transaction and stores them all in another, each row under its own org.
 */
final class CeilingLoop {

    private final BenchDatabase db;
    private final Fixture fixture;
    private final int threads;

    CeilingLoop(BenchDatabase db, Fixture fixture, int threads) {
        this.db = db;
        this.fixture = fixture;
        this.threads = threads;
    }

    /** What one drain did: rows finalized and the wall-clock time it took. */
    record Drained(long rows, double seconds) {
        double perSecond() {
            return rows / seconds;
        }
    }

    /**
     * Makes every pending row claimable in one commit and drains them all. Each thread stops when a claim comes
     * back empty: every row left is then leased to another thread.
     */
    Drained drainAll() throws Exception {
        DrainRelease.releaseAll(db);
        AtomicLong finalized = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long start = System.nanoTime();
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String owner = "ceiling-" + t;
                futures.add(pool.submit(() -> {
                    runWorker(owner, finalized);
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        return new Drained(finalized.get(), seconds);
    }

    /** One claimed row: its id, its org and the attempts that fence its lease. */
    private record Leased(UUID id, UUID org, int attempts) {
    }

    private static void scopeTo(PreparedStatement setOrg, Leased row) throws SQLException {
        setOrg.setString(1, row.org().toString());
        setOrg.executeQuery().close();
    }

    private void runWorker(String owner, AtomicLong finalized) throws SQLException {
        String details = "{\"synthesizer\":\"stub\",\"lease_owner\":\"" + owner + "\"}";
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            try (PreparedStatement enterSweep = c.prepareStatement(PoolStatements.ENTER_SWEEP);
                 PreparedStatement claim = c.prepareStatement(PoolStatements.CLAIM);
                 PreparedStatement enterOrg = c.prepareStatement(PoolStatements.ENTER_ORG);
                 PreparedStatement switchOrg = c.prepareStatement(PoolStatements.SWITCH_ORG);
                 PreparedStatement load = c.prepareStatement(PoolStatements.LOAD);
                 PreparedStatement store = c.prepareStatement(PoolStatements.STORE)) {
                while (true) {
                    List<Leased> leased = new ArrayList<>();
                    enterSweep.executeQuery().close();
                    claim.setInt(1, PoolStatements.CLAIM_BATCH);
                    claim.setString(2, owner);
                    try (ResultSet rs = claim.executeQuery()) {
                        while (rs.next()) {
                            leased.add(new Leased(rs.getObject(1, UUID.class), rs.getObject(2, UUID.class),
                                    rs.getInt(3)));
                        }
                    }
                    c.commit();
                    if (leased.isEmpty()) {
                        return;
                    }
                    for (int i = 0; i < leased.size(); i++) {
                        Leased row = leased.get(i);
                        scopeTo(i == 0 ? enterOrg : switchOrg, row);
                        load.setObject(1, row.id());
                        try (ResultSet rs = load.executeQuery()) {
                            if (!rs.next()) {
                                throw new IllegalStateException(
                                        "leased row " + row.id() + " is not visible in its org");
                            }
                            rs.getString("rules");
                        }
                    }
                    c.commit();

                    for (int i = 0; i < leased.size(); i++) {
                        Leased row = leased.get(i);
                        scopeTo(i == 0 ? enterOrg : switchOrg, row);
                        store.setString(1, fixture.mergeJson());
                        store.setObject(2, row.id());
                        store.setString(3, owner);
                        store.setInt(4, row.attempts());
                        store.setObject(5, row.org());
                        store.setString(6, details);
                        if (store.executeUpdate() == 1) {
                            finalized.incrementAndGet();
                        }
                    }
                    c.commit();
                }
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }
}
