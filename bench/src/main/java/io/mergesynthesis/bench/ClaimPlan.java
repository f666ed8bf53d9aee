package io.mergesynthesis.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import io.mergesynthesis.service.worker.store.ConflictLeases;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * {@code java -cp bench/target/merge-synthesis-bench.jar io.mergesynthesis.bench.ClaimPlan [--rows N] [--out DIR]}:
 * the pool's claim ({@code ConflictLeases.CLAIM}, the product's own text) under {@code EXPLAIN (ANALYZE, BUFFERS)} on a table of
 * {@code --rows} claimable conflicts (default a million) and as many finished ones, with a few expired and a few
 * live leases among them, in a transaction rolled back afterwards. Writes {@code claim-plan.txt} under
 * {@code --out}: both reads of the claim should stay index scans that stop after a handful of rows.
 */
public final class ClaimPlan {

    private static final int EXPIRED = 50;
    private static final int HELD = 50;

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
            Path file = options.out().resolve("claim-plan.txt");
            Files.createDirectories(file.getParent());
            Files.write(file, out, StandardCharsets.UTF_8);
            out.forEach(System.out::println);
            System.err.println("[plan] wrote " + file);
        }
    }

    private static List<String> explain(BenchDatabase db, int limit) throws Exception {
        try (Connection c = db.connectAsSweep(); Handle h = Jdbi.open(c)) {
            c.setAutoCommit(false);
            List<String> lines = h.createQuery("EXPLAIN (ANALYZE, BUFFERS) " + ConflictLeases.CLAIM)
                    .bindMap(ConflictLeases.claimParams("plan", limit, Duration.ofSeconds(60)))
                    .mapTo(String.class)
                    .list();
            c.rollback();
            return lines;
        }
    }
}
