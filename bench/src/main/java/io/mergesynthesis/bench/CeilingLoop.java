package io.mergesynthesis.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * transaction and stores them all in another that also claims the next batch, each row under its own org, each
 * transaction a single multi-statement text sent in one round trip.
 */
final class CeilingLoop {

    private final BenchDatabase db;
    private final Fixture fixture;
    private final int threads;
    private final int claimBatch;

    CeilingLoop(BenchDatabase db, Fixture fixture, int threads) {
        this(db, fixture, threads, PoolStatements.CLAIM_BATCH);
    }

    /**
     * @param claimBatch the most rows one thread claims at a time; {@code threads x claimBatch} conflicts are in
     *     flight at most
     */
    CeilingLoop(BenchDatabase db, Fixture fixture, int threads, int claimBatch) {
        this.db = db;
        this.fixture = fixture;
        this.threads = threads;
        this.claimBatch = claimBatch;
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

    /**
     * One thread's drain, the texts prepared once per batch size as the driver would cache the pool's. Auto-commit
     * stays on: each text is one round trip and one implicit transaction, as the pool sends it. As in the pool,
     * the store of a batch claims the next one in the same round trip.
     */
    private void runWorker(String owner, AtomicLong finalized) throws SQLException {
        String details = "{\"synthesizer\":\"stub\",\"lease_owner\":\"" + owner + "\"}";
        try (Connection c = db.connect()) {
            c.setAutoCommit(true);
            Map<Integer, PreparedStatement> reads = new HashMap<>();
            Map<Integer, PreparedStatement> stores = new HashMap<>();
            try (PreparedStatement claim = c.prepareStatement(PoolStatements.claimTrip())) {
                List<Leased> leased = claim(claim, owner, claimBatch);
                while (!leased.isEmpty()) {
                    PreparedStatement read = reads.computeIfAbsent(leased.size(),
                            n -> prepare(c, PoolStatements.readTrip(n)));
                    int p = 1;
                    for (Leased row : leased) {
                        read.setString(p++, row.org().toString());
                        read.setObject(p++, row.id());
                    }
                    read.execute();
                    for (int part = 0; part < 1 + 2 * leased.size(); part++) {
                        if (part > 0 && part % 2 == 0) {
                            try (ResultSet rs = read.getResultSet()) {
                                if (!rs.next()) {
                                    throw new IllegalStateException("a leased row is not visible in its org");
                                }
                                rs.getString("rules");
                            }
                        }
                        read.getMoreResults();
                    }

                    PreparedStatement store = stores.computeIfAbsent(leased.size(),
                            n -> prepare(c, PoolStatements.storeAndClaimTrip(n)));
                    p = 1;
                    for (Leased row : leased) {
                        store.setString(p++, row.org().toString());
                        store.setString(p++, fixture.mergeJson());
                        store.setObject(p++, row.id());
                        store.setString(p++, owner);
                        store.setInt(p++, row.attempts());
                        store.setObject(p++, row.org());
                        store.setString(p++, details);
                    }
                    // The claim's limit three times (expired leases, pending rows, both), then its owner.
                    store.setInt(p++, leased.size());
                    store.setInt(p++, leased.size());
                    store.setInt(p++, leased.size());
                    store.setString(p, owner);
                    boolean rows = store.execute();
                    for (int part = 0; part < 1 + 2 * leased.size(); part++) {
                        if (part > 0 && part % 2 == 0 && !rows && store.getUpdateCount() == 1) {
                            finalized.incrementAndGet();
                        }
                        rows = store.getMoreResults();
                    }
                    store.getResultSet().close();
                    store.getMoreResults();
                    leased = leasedRows(store.getResultSet());
                }
            } finally {
                for (PreparedStatement statement : reads.values()) {
                    statement.close();
                }
                for (PreparedStatement statement : stores.values()) {
                    statement.close();
                }
            }
        }
    }

    private static List<Leased> leasedRows(ResultSet rs) throws SQLException {
        List<Leased> leased = new ArrayList<>();
        try (rs) {
            while (rs.next()) {
                leased.add(new Leased(rs.getObject(1, UUID.class), rs.getObject(2, UUID.class), rs.getInt(3)));
            }
        }
        return leased;
    }

    /** Claims up to a batch; the text's results are two settings rows, the leased rows, the next due time. */
    private static List<Leased> claim(PreparedStatement claim, String owner, int batch) throws SQLException {
        claim.setInt(1, batch);
        claim.setInt(2, batch);
        claim.setInt(3, batch);
        claim.setString(4, owner);
        claim.execute();
        claim.getMoreResults();
        claim.getMoreResults();
        List<Leased> leased = leasedRows(claim.getResultSet());
        claim.getMoreResults();
        claim.getResultSet().close();
        return leased;
    }

    private static PreparedStatement prepare(Connection c, String text) {
        try {
            return c.prepareStatement(text);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot prepare " + text, e);
        }
    }
}
