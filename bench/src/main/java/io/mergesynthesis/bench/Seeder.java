package io.mergesynthesis.bench;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Base64;
import java.util.UUID;

/**
 * Fills the benchmark database with set-based SQL ({@code generate_series}), fast enough for a million rows.
 * Conflicts go in under the sweep identity, which may write every org's rows; tokens go in as the login role,
 * the way the token command stores them (a SHA-256 of a random secret with the product's prefix).
 */
final class Seeder {

    /** Seeded conflicts are spread over this many orgs unless a measurement says otherwise. */
    static final int DEFAULT_ORGS = 100;

    private static final int CHUNK = 100_000;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final BenchDatabase db;
    private final Fixture fixture;

    Seeder(BenchDatabase db, Fixture fixture) {
        this.db = db;
        this.fixture = fixture;
    }

    /** The id of the org numbered {@code n}, the same here as in SQL ({@link #orgIdSql}). */
    static UUID orgId(int n) {
        try {
            byte[] md5 = MessageDigest.getInstance("MD5").digest(("bench-org-" + n).getBytes(StandardCharsets.UTF_8));
            long high = 0;
            long low = 0;
            for (int i = 0; i < 8; i++) {
                high = (high << 8) | (md5[i] & 0xff);
                low = (low << 8) | (md5[i + 8] & 0xff);
            }
            return new UUID(high, low);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Inserts {@code count} pending conflicts that no one may claim yet ({@code not_before} ten years ahead), so
     * that they can be made claimable all at once, in one commit, when a timed drain starts.
     */
    void pendingOnHold(String batch, int count) throws SQLException {
        insertConflicts(batch, count, DEFAULT_ORGS, false, "now() + interval '10 years'");
    }

    /**
     * As {@link #pendingOnHold}, every conflict of the one org numbered {@code org} ({@link #orgId}): one org's
     * backlog, as an import would leave it.
     */
    void pendingOnHoldOf(String batch, int count, int org) throws SQLException {
        insertConflicts(batch, count, orgIdSql(Integer.toString(org)), false, "now() + interval '10 years'");
    }

    /** Inserts {@code count} finished conflicts: the history a claim must not slow down with. */
    void done(String batch, int count, int orgs) throws SQLException {
        insertConflicts(batch, count, orgs, true, "now()");
    }

    /**
     * Inserts {@code count} conflicts leased to {@code owner}, a holder that will never finish them, within the
     * caller's open transaction on {@code c} (the sweep identity). The lease of the one numbered {@code g}
     * (0 up, the end of its dedup key) expires {@code first + g * step} after the transaction's start, which is
     * also its {@code received_at}; its one attempt is counted already.
     */
    void leasedToDeadHolder(Connection c, String batch, int count, String owner, java.time.Duration first,
                            java.time.Duration step) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("""
                INSERT INTO policy_conflicts
                    (id, org_id, dedup_key, action, target, rules, winner_policy_id, detected_at, received_at,
                     synthesis_state, attempts, lease_owner, lease_expires_at, not_before)
                SELECT gen_random_uuid(), o.org, ? || '-' || g, ?, ?, CAST(replace(?, ?, o.org::text) AS jsonb), ?,
                       now() - interval '1 hour', now(), 'in_progress', 1, ?, expiry, expiry
                FROM generate_series(0, ? - 1) g,
                     LATERAL (SELECT %s AS org) o,
                     LATERAL (SELECT now() + (? + g * ?) * interval '1 millisecond' AS expiry) e"""
                .formatted(orgIdSql("g % " + DEFAULT_ORGS)))) {
            int i = 1;
            i = bindConflict(s, i, batch);
            s.setString(i++, owner);
            s.setInt(i++, count);
            s.setLong(i++, first.toMillis());
            s.setLong(i, step.toMillis());
            s.executeUpdate();
        }
    }

    /**
     * Binds the dedup-key prefix and the fixture's conflict from parameter {@code i}; returns the next one. The
     * rules are the fixture's with its org's id as a placeholder for the row's org ({@code o.org}), so that the
     * org rule is owned by the org of its conflict, as ingest requires.
     */
    private int bindConflict(PreparedStatement s, int i, String batch) throws SQLException {
        s.setString(i++, batch);
        s.setString(i++, fixture.action());
        s.setString(i++, fixture.target());
        s.setString(i++, fixture.rulesJson());
        s.setString(i++, fixture.orgId());
        s.setString(i++, fixture.winnerPolicyId());
        return i;
    }

    /** Inserts one {@code conflict_detected} event for each of the first {@code count} conflicts. */
    int events(int count) throws SQLException {
        int written = 0;
        try (Connection c = db.connectAsSweep()) {
            c.setAutoCommit(false);
            // Several transactions, so that the stream spans several transaction ids as a live one does.
            while (written < count) {
                int n = Math.min(CHUNK, count - written);
                try (PreparedStatement s = c.prepareStatement("""
                        INSERT INTO conflict_events (org_id, conflict_id, event_type, details)
                        SELECT org_id, id, 'conflict_detected',
                               jsonb_build_object('dedup_key', dedup_key, 'action', action, 'target', target)
                        FROM policy_conflicts ORDER BY id OFFSET ? LIMIT ?""")) {
                    s.setInt(1, written);
                    s.setInt(2, n);
                    int inserted = s.executeUpdate();
                    c.commit();
                    if (inserted == 0) {
                        break;
                    }
                    written += inserted;
                }
            }
        }
        return written;
    }

    /** Mints a token for {@code role} (and {@code org}, for every role but platform) and returns its secret. */
    String token(String role, UUID org) throws SQLException {
        byte[] random = new byte[32];
        RANDOM.nextBytes(random);
        String secret = "msk_" + Base64.getUrlEncoder().withoutPadding().encodeToString(random);
        try (Connection c = db.connect(); PreparedStatement s = c.prepareStatement(
                "INSERT INTO api_tokens (id, token_sha256, role, org_id) VALUES (?, ?, ?, ?)")) {
            s.setObject(1, UUID.randomUUID());
            s.setBytes(2, sha256(secret));
            s.setString(3, role);
            s.setObject(4, org);
            s.executeUpdate();
        }
        return secret;
    }

    private void insertConflicts(String batch, int count, int orgs, boolean done, String notBefore)
            throws SQLException {
        insertConflicts(batch, count, orgIdSql("g % " + orgs), done, notBefore);
    }

    /** Inserts {@code count} conflicts, the org of the one numbered {@code g} given by SQL {@code orgSql}. */
    private void insertConflicts(String batch, int count, String orgSql, boolean done, String notBefore)
            throws SQLException {
        try (Connection c = db.connectAsSweep()) {
            c.setAutoCommit(false);
            for (int from = 1; from <= count; from += CHUNK) {
                int to = Math.min(count, from + CHUNK - 1);
                try (PreparedStatement s = c.prepareStatement("""
                        INSERT INTO policy_conflicts
                            (id, org_id, dedup_key, action, target, rules, winner_policy_id, detected_at,
                             received_at, not_before, synthesis_state, attempts, suggested_merge, synthesized_at)
                        SELECT gen_random_uuid(), o.org, ? || '-' || g, ?, ?, CAST(replace(?, ?, o.org::text) AS jsonb),
                               ?, now() - interval '1 hour', now() - (g * interval '1 millisecond'), %s,
                               CASE WHEN ? THEN 'done' ELSE 'pending' END,
                               CASE WHEN ? THEN 1 ELSE 0 END,
                               CASE WHEN ? THEN CAST(replace(?, ?, o.org::text) AS jsonb) END,
                               CASE WHEN ? THEN now() END
                        FROM generate_series(?, ?) g, LATERAL (SELECT %s AS org) o"""
                        .formatted(notBefore, orgSql))) {
                    int i = 1;
                    i = bindConflict(s, i, batch);
                    s.setBoolean(i++, done);
                    s.setBoolean(i++, done);
                    s.setBoolean(i++, done);
                    s.setString(i++, fixture.mergeJson());
                    s.setString(i++, fixture.orgId());
                    s.setBoolean(i++, done);
                    s.setInt(i++, from);
                    s.setInt(i, to);
                    s.executeUpdate();
                }
                c.commit();
            }
        }
    }

    /** SQL for the id of the org numbered by {@code numberExpr}: the MD5 of {@code "bench-org-" + n} as a UUID. */
    static String orgIdSql(String numberExpr) {
        return "md5('bench-org-' || (" + numberExpr + "))::uuid";
    }

    static byte[] sha256(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** How many conflicts are in {@code state}; a full count, for checks after a run, not for polling. */
    long count(String state) throws SQLException {
        try (Connection c = db.connectAsSweep(); PreparedStatement s = c.prepareStatement(
                "SELECT count(*) FROM policy_conflicts WHERE synthesis_state = ?")) {
            s.setString(1, state);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** How many conflicts of {@code org} are in {@code state}. */
    long count(String state, UUID org) throws SQLException {
        try (Connection c = db.connectAsSweep(); PreparedStatement s = c.prepareStatement(
                "SELECT count(*) FROM policy_conflicts WHERE synthesis_state = ? AND org_id = ?")) {
            s.setString(1, state);
            s.setObject(2, org);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
