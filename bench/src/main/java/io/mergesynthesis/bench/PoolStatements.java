package io.mergesynthesis.bench;

/**
 * The statements the worker pool sends for one conflict, batched as the pool batches them, for the ceiling loop
 * to replay with nothing in between. The pool sends each batch as one multi-statement text with auto-commit on
 * (its {@code db.OneTripBatch}): one round trip and one implicit transaction per batch. {@link #claimTrip},
 * {@link #readTrip} and {@link #storeAndClaimTrip} build the same texts. The pool's store also claims work for
 * the workers it frees, in the same round trip; its claim loop claims only when workers free up otherwise.
 *
 * <p>THESE MUST MIRROR THE POOL'S SQL. The ceiling is only a ceiling of the pool if it issues the same
 * statements in the same transactions: when the pool's claim, load, finalize or event insert changes (its
 * lease SQL and {@code db.EventLog} in the service), change the matching text here in the same commit, and say
 * so in the benchmark's output by bumping {@link #VERSION}.
 */
final class PoolStatements {

    /** Printed with the figures, so that two runs against different statement sets are not compared. */
    static final String VERSION = "pool-sql-9";

    /** The pool claims up to as many rows as it has free workers in one statement. */
    static final int CLAIM_BATCH = 4;

    /** How long a claim leases a row (the product's default {@code synthesis.leaseDuration}). */
    static final String LEASE = "60 seconds";

    /** Opens a cross-tenant batch: the sweep role, with row-level security made to fail rather than filter. */
    static final String ENTER_SWEEP =
            "SELECT set_config('role', 'merge_synthesis_sweep', true), set_config('row_security', 'off', true)";

    /** Lets the claim loop's claim commit without waiting for the WAL flush; the stores still wait for it. */
    static final String NO_WAIT_FOR_DISK = "SELECT set_config('synchronous_commit', 'off', true)";

    /**
     * Leases up to {@code ?} claimable rows to the owner {@code ?}, skipping rows another claim holds: expired
     * leases first, then pending rows ({@code ?} three times: the limit of each read and of the two together).
     */
    static final String CLAIM = """
            WITH expired AS (
                SELECT id, true AS recovered, updated_at < pg_postmaster_start_time() AS cut_by_restart
                FROM policy_conflicts
                WHERE synthesis_state = 'in_progress' AND lease_expires_at <= now()
                ORDER BY lease_expires_at
                LIMIT ?
                FOR UPDATE SKIP LOCKED),
            fresh AS (
                SELECT id, false AS recovered, false AS cut_by_restart
                FROM policy_conflicts
                WHERE synthesis_state = 'pending' AND not_before <= now()
                ORDER BY not_before
                LIMIT ?
                FOR UPDATE SKIP LOCKED),
            picked AS (
                SELECT * FROM expired UNION ALL SELECT * FROM fresh
                LIMIT ?)
            UPDATE policy_conflicts c
            SET synthesis_state = 'in_progress',
                lease_owner = ?,
                lease_expires_at = now() + interval '%1$s',
                not_before = now() + interval '%1$s',
                attempts = c.attempts + 1,
                updated_at = now()
            FROM picked
            WHERE c.id = picked.id
            RETURNING c.id, c.org_id, c.attempts, picked.recovered, picked.cut_by_restart""".formatted(LEASE);

    /**
     * Opens a tenant batch under row-level security, scoped to no org yet: each row's statement is preceded by
     * {@link #SWITCH_ORG} naming that row's org.
     */
    static final String ENTER_TENANT =
            "SELECT set_config('role', 'merge_synthesis_tenant', true), set_config('app.org_id', '', true)";

    /** Turns a tenant batch cross-tenant for a claim at its end: the sweep role, row security off, no org. */
    static final String LEAVE_TENANT = "SELECT set_config('role', 'merge_synthesis_sweep', true), "
            + "set_config('row_security', 'off', true), set_config('app.org_id', '', true)";

    /** Points the open tenant batch at the next row's org ({@code ?}). */
    static final String SWITCH_ORG = "SELECT set_config('app.org_id', ?, true)";

    /** How long until the next row waiting out a backoff or a lease is claimable; sent with every claim. */
    static final String NEXT_DUE_IN = """
            SELECT (extract(epoch FROM min(not_before) - now()) * 1000000)::bigint
            FROM policy_conflicts
            WHERE synthesis_state IN ('pending', 'in_progress') AND not_before > now()""";

    /** Reads the leased row back, as the synthesizer's input, inside the org's scope. */
    static final String LOAD = """
            SELECT id, org_id, dedup_key, action, target, rules::text AS rules, winner_policy_id, detected_at,
                   synthesis_state, lease_owner, attempts
            FROM policy_conflicts WHERE id = ?""";

    /**
     * Stores the merge ({@code ?}) for row {@code ?}, fenced on the lease owner {@code ?} and attempts {@code ?},
     * and appends the event that goes with it in the same statement: org {@code ?}, details {@code ?}.
     */
    static final String STORE = """
            WITH stored AS (
                UPDATE policy_conflicts
                SET suggested_merge = CAST(? AS jsonb),
                    synthesis_state = 'done',
                    synthesized_at = now(),
                    last_failure_reason = NULL,
                    lease_owner = NULL,
                    lease_expires_at = NULL,
                    not_before = now(),
                    updated_at = now()
                WHERE id = ? AND lease_owner = ? AND attempts = ?
                  AND synthesis_state = 'in_progress'
                RETURNING id)
            INSERT INTO conflict_events (org_id, conflict_id, event_type, details)
            SELECT ?, id, 'merge_synthesized', CAST(? AS jsonb) FROM stored""";

    /**
     * The claim loop's claim as one text: results are the two settings rows, the leased rows, and the next due
     * time.
     */
    static String claimTrip() {
        return ENTER_SWEEP + ";\n" + NO_WAIT_FOR_DISK + ";\n" + CLAIM + ";\n" + NEXT_DUE_IN + ";\n";
    }

    /** The read-back of {@code rows} leased rows as one text: per row, its org switch and then its load. */
    static String readTrip(int rows) {
        return tenantTrip(LOAD, rows);
    }

    /**
     * The store of {@code rows} merges as one text, per row its org switch and then its store, ending with a
     * claim of as many conflicts for the workers the store frees ({@code LIMIT ?} and owner {@code ?} last).
     */
    static String storeAndClaimTrip(int rows) {
        return tenantTrip(STORE, rows) + LEAVE_TENANT + ";\n" + CLAIM + ";\n";
    }

    private static String tenantTrip(String perRow, int rows) {
        StringBuilder text = new StringBuilder(ENTER_TENANT).append(";\n");
        for (int i = 0; i < rows; i++) {
            text.append(SWITCH_ORG).append(";\n").append(perRow).append(";\n");
        }
        return text.toString();
    }

    private PoolStatements() {
    }
}
