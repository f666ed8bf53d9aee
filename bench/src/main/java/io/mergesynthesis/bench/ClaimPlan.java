package io.mergesynthesis.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import io.mergesynthesis.service.worker.store.ConflictLeases;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * {@code java -cp bench/target/merge-synthesis-bench.jar io.mergesynthesis.bench.ClaimPlan [--rows N] [--out DIR]}:
 * the pool's claim ({@code ConflictLeases.CLAIM}, the product's own text) under {@code EXPLAIN (ANALYZE, BUFFERS)} on a table of
 * {@code --rows} claimable conflicts (default a million) and as many finished ones, with a few expired and a few
 * live leases among them, in a transaction rolled back afterwards, and then as a pool's store makes it during a
 * drain: a claim of two on the orgs its picture names. Writes {@code claim-plan.txt} under {@code --out}: both
 * reads of the claim should stay index scans that stop after a handful of rows.
 */
public final class ClaimPlan {

    private static final int EXPIRED = 50;
    private static final int HELD = 50;
    /** What a store claims during a drain with the default four workers: about two at a time. */
    private static final int STORE_CLAIM = 2;
    /** The orgs a claim of two names from its pool's picture: the two and three to spare. */
    private static final int PICTURED = 5;

    private ClaimPlan() {
    }

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        Fixture fixture = Fixture.load();
        try (BenchDatabase db = BenchDatabase.open(options)) {
            db.guardAgainstWiping(options.wipe());
            ServiceCommand.run(options, db, "db-migrate", "db", "migrate");
            db.reset();
            Seeder seeder = new Seeder(db, fixture);
            System.err.println("[plan] seeding " + options.rows() + " finished and " + options.rows()
                    + " claimable conflicts");
            seeder.done("history", options.rows(), Seeder.DEFAULT_ORGS);
            seeder.pendingOnHold("backlog", options.rows());
            try (Connection c = db.connectAsSweep(); Statement s = c.createStatement()) {
                c.setAutoCommit(false);
                s.executeUpdate("UPDATE policy_conflicts SET not_before = now() - interval '1 minute' "
                        + "WHERE synthesis_state = 'pending'");
                c.commit();
            }
            db.settle();
            // Before any lease has expired, as during a drain.
            List<String> storeClaim = explain(db, STORE_CLAIM, pictured(db));
            try (Connection c = db.connectAsSweep()) {
                c.setAutoCommit(false);
                // Expired leases of a holder that died, and live leases of one still working.
                seeder.leasedToDeadHolder(c, "expired", EXPIRED, "gone", java.time.Duration.ofMillis(-60_000),
                        java.time.Duration.ofMillis(1));
                seeder.leasedToDeadHolder(c, "held", HELD, "working", java.time.Duration.ofMillis(600_000),
                        java.time.Duration.ofMillis(1));
                c.commit();
            }
            db.settle();
            List<String> out = new ArrayList<>();
            out.add("-- the product's claim of " + CeilingLoop.CLAIM_BATCH + " conflicts, "
                    + options.rows() + " claimable and " + options.rows() + " finished, " + EXPIRED
                    + " expired leases, " + HELD + " live ones; " + db.describe());
            out.add("");
            out.add("-- a claim of " + CeilingLoop.CLAIM_BATCH + ": the expired leases fill it, pending rows "
                    + "are not read");
            out.addAll(explain(db, CeilingLoop.CLAIM_BATCH));
            int past = EXPIRED + 10;
            out.add("");
            out.add("-- a claim of " + past + ": every expired lease, then 10 pending rows");
            out.addAll(explain(db, past));
            out.add("");
            out.add("-- a store's claim of " + STORE_CLAIM + " during a drain, before any lease expired: pending "
                    + "rows of the " + PICTURED + " orgs a pool's picture names");
            out.addAll(storeClaim);
            Path file = options.out().resolve("claim-plan.txt");
            Files.createDirectories(file.getParent());
            Files.write(file, out, StandardCharsets.UTF_8);
            out.forEach(System.out::println);
            System.err.println("[plan] wrote " + file);
        }
    }

    private static List<String> explain(BenchDatabase db, int limit) throws Exception {
        return explain(db, limit, ConflictLeases.claimParams("plan", limit, Duration.ofSeconds(60)));
    }

    /** The parameters of a store's claim as a pool with a picture of the waiting orgs sends them. */
    private static Map<String, Object> pictured(BenchDatabase db) throws Exception {
        Map<String, Object> params = new HashMap<>(ConflictLeases.claimParams("plan", STORE_CLAIM,
                Duration.ofSeconds(60)));
        try (Handle h = Jdbi.open(db.connectAsSweep())) {
            params.put("candidates", String.join(",", h.createQuery("""
                            SELECT DISTINCT org_id::text FROM policy_conflicts
                            WHERE synthesis_state = 'pending' ORDER BY 1 LIMIT :orgs""")
                    .bind("orgs", PICTURED)
                    .mapTo(String.class)
                    .list()));
        }
        return params;
    }

    private static List<String> explain(BenchDatabase db, int limit, Map<String, Object> params) throws Exception {
        try (Handle h = Jdbi.open(db.connectAsSweep())) {
            // Begun and rolled back through the handle, which then closes with no transaction open.
            h.begin();
            try {
                return h.createQuery("EXPLAIN (ANALYZE, BUFFERS) " + ConflictLeases.CLAIM)
                        .bindMap(params)
                        .mapTo(String.class)
                        .list();
            } finally {
                h.rollback();
            }
        }
    }
}
