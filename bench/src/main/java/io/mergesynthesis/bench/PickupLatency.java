package io.mergesynthesis.bench;

import io.mergesynthesis.harness.Replica;
import io.mergesynthesis.service.db.ScopedTransactions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;

/**
 * How long a new conflict waits for its merge when the pool is idle: one conflict at a time is inserted the
 * way ingest stores it (the row, its {@code conflict_detected} event and the NOTIFY, in one transaction scoped
 * to its org), and a dedicated connection polls that row every millisecond until its merge is stored.
 */
final class PickupLatency {

    private static final Duration SAMPLE_TIMEOUT = Duration.ofSeconds(10);

    private final BenchDatabase db;
    private final Fixture fixture;

    PickupLatency(BenchDatabase db, Fixture fixture) {
        this.db = db;
        this.fixture = fixture;
    }

    /** A conflict whose merge never came within the sample timeout. */
    static final class NoMerge extends Exception {
        NoMerge(int sample) {
            super("sample " + sample + " had no merge after " + SAMPLE_TIMEOUT.toSeconds() + " s");
        }
    }

    /** Milliseconds from each committed insert to its stored merge, {@code samples} times in a row. */
    Percentiles measure(int samples) throws SQLException, NoMerge {
        UUID org = Seeder.orgId(0);
        double[] millis = new double[samples];
        try (Connection writer = db.connect(); Connection watcher = db.connectAsSweep();
             PreparedStatement scope = writer.prepareStatement(
                     "SELECT set_config('role', '" + ScopedTransactions.TENANT_ROLE
                             + "', true), set_config('app.org_id', ?, true)");
             PreparedStatement insert = writer.prepareStatement("""
                     INSERT INTO policy_conflicts (id, org_id, dedup_key, action, target, rules, winner_policy_id,
                                                   detected_at)
                     VALUES (?, ?, ?, ?, ?, CAST(? AS jsonb), ?, now())""");
             PreparedStatement event = writer.prepareStatement("""
                     INSERT INTO conflict_events (org_id, conflict_id, event_type, details)
                     VALUES (?, ?, 'conflict_detected', '{}'::jsonb)""");
             PreparedStatement wake = writer.prepareStatement("SELECT pg_notify(?, '')");
             PreparedStatement state = watcher.prepareStatement(
                     "SELECT synthesis_state FROM policy_conflicts WHERE id = ?")) {
            writer.setAutoCommit(false);
            for (int i = 0; i < samples; i++) {
                UUID id = UUID.randomUUID();
                scope.setString(1, org.toString());
                scope.executeQuery().close();
                insert.setObject(1, id);
                insert.setObject(2, org);
                insert.setString(3, "latency-" + i + "-" + id);
                insert.setString(4, fixture.action());
                insert.setString(5, fixture.target());
                insert.setString(6, fixture.rulesJson(org));
                insert.setString(7, fixture.winnerPolicyId());
                insert.executeUpdate();
                event.setObject(1, org);
                event.setObject(2, id);
                event.executeUpdate();
                wake.setString(1, DrainRelease.PENDING_CHANNEL);
                wake.executeQuery().close();
                writer.commit();
                long committed = System.nanoTime();
                state.setObject(1, id);
                while (true) {
                    try (ResultSet rs = state.executeQuery()) {
                        if (rs.next() && "done".equals(rs.getString(1))) {
                            break;
                        }
                    }
                    if (System.nanoTime() - committed > SAMPLE_TIMEOUT.toNanos()) {
                        throw new NoMerge(i);
                    }
                    Replica.sleep(1);
                }
                millis[i] = (System.nanoTime() - committed) / 1e6;
            }
        }
        return new Percentiles(millis);
    }
}
