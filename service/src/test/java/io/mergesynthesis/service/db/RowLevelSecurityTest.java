package io.mergesynthesis.service.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mergesynthesis.service.testing.TestDatabase;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Row-level security at the SQL level, logged in as a superuser as the embedded default is: isolation must
 * come from the role switch and the forced policies, not from how the service happens to log in.
 */
class RowLevelSecurityTest {

    private static final UUID ORG_A = UUID.fromString("aaaaaaaa-0000-4000-8000-000000000001");
    private static final UUID ORG_B = UUID.fromString("bbbbbbbb-0000-4000-8000-000000000002");

    private TestDatabase database;
    private ScopedTransactions transactions;
    private UUID conflictOfB;

    @BeforeEach
    void seedTwoOrgs() {
        database = TestDatabase.fresh();
        transactions = database.transactions();
        insert(ORG_A, "a-1");
        insert(ORG_A, "a-2");
        conflictOfB = insert(ORG_B, "b-1");
    }

    @Test
    void aTenantTransactionSeesOnlyItsOrg() {
        List<UUID> orgs = transactions.inOrg(ORG_A, h ->
                h.createQuery("SELECT org_id FROM policy_conflicts").mapTo(UUID.class).list());
        assertThat(orgs).hasSize(2).containsOnly(ORG_A);

        long events = transactions.inOrg(ORG_A, h ->
                h.createQuery("SELECT count(*) FROM conflict_events WHERE org_id = :b").bind("b", ORG_B)
                        .mapTo(Long.class).one());
        assertThat(events).isZero();
    }

    @Test
    void aTenantTransactionChangesNoneOfAnotherOrgsRows() {
        int updated = transactions.inOrg(ORG_A, h -> h.createUpdate(
                        "UPDATE policy_conflicts SET inbox_status = 'resolved', resolution = 'manual' WHERE id = :id")
                .bind("id", conflictOfB).execute());
        assertThat(updated).isZero();
        assertThat(inboxStatusOf(conflictOfB)).isEqualTo("open");

        // Writing a row into another org is refused by the policy's WITH CHECK, not silently stored.
        assertThatThrownBy(() -> transactions.inOrg(ORG_A, h -> h.createUpdate("""
                        INSERT INTO policy_conflicts (id, org_id, dedup_key, action, target, rules, winner_policy_id, detected_at)
                        VALUES (gen_random_uuid(), :b, 'smuggled', 'tool_call', 't', '[]', 'p', now())""")
                .bind("b", ORG_B).execute()))
                .hasMessageContaining("row-level security");

        // Moving one's own row into another org is refused too.
        assertThatThrownBy(() -> transactions.inOrg(ORG_A, h -> h.createUpdate(
                        "UPDATE policy_conflicts SET org_id = :b WHERE dedup_key = 'a-1'")
                .bind("b", ORG_B).execute()))
                .hasMessageContaining("row-level security");
    }

    @Test
    void noOrgMeansNoRowsOnAFreshAndOnAReusedConnection() {
        Jdbi jdbi = database.jdbi();
        try (Handle handle = jdbi.open()) {
            // Fresh connection: app.org_id has never been set.
            assertThat(countAsTenantWithoutOrg(handle)).isZero();
            // Reused connection: after a transaction-local set, the setting reads as '' rather than NULL.
            handle.useTransaction(h -> ScopedTransactions.switchOrg(h, ORG_A));
            assertThat(handle.createQuery("SELECT current_setting('app.org_id', true)").mapTo(String.class).one())
                    .isEmpty();
            assertThat(countAsTenantWithoutOrg(handle)).isZero();
        }
        long seenWithoutOrg = transactions.asTenant(h ->
                h.createQuery("SELECT count(*) FROM policy_conflicts").mapTo(Long.class).one());
        assertThat(seenWithoutOrg).isZero();
    }

    @Test
    void thePolicyIsForcedSoTheTableOwnerIsHeldToItToo() {
        boolean forced = database.jdbi().withHandle(h -> h.createQuery("""
                        SELECT bool_and(relrowsecurity AND relforcerowsecurity) FROM pg_class
                        WHERE relname IN ('policy_conflicts', 'conflict_events')""").mapTo(Boolean.class).one());
        assertThat(forced).isTrue();

        // Hand the table to an ordinary role: as its owner, it still sees only the org it names.
        database.jdbi().useHandle(h -> {
            h.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'rls_probe_owner') "
                    + "THEN CREATE ROLE rls_probe_owner NOLOGIN NOBYPASSRLS; END IF; END $$");
            h.execute("ALTER TABLE policy_conflicts OWNER TO rls_probe_owner");
        });
        long seenAsOwner = database.jdbi().inTransaction(h -> {
            h.execute("SET LOCAL ROLE rls_probe_owner");
            h.execute("SELECT set_config('app.org_id', '" + ORG_B + "', true)");
            return h.createQuery("SELECT count(*) FROM policy_conflicts").mapTo(Long.class).one();
        });
        assertThat(seenAsOwner).isEqualTo(1);
        long unscopedAsOwner = database.jdbi().inTransaction(h -> {
            h.execute("SET LOCAL ROLE rls_probe_owner");
            return h.createQuery("SELECT count(*) FROM policy_conflicts").mapTo(Long.class).one();
        });
        assertThat(unscopedAsOwner).isZero();
    }

    @Test
    void theSweepSeesEveryOrgAndATenantCannotTurnSecurityOff() {
        long all = transactions.crossTenant(h ->
                h.createQuery("SELECT count(*) FROM policy_conflicts").mapTo(Long.class).one());
        assertThat(all).isEqualTo(3);

        // row_security = off under a role subject to RLS is an error, never a silently filtered result.
        assertThatThrownBy(() -> transactions.inOrg(ORG_A, h -> {
            h.execute("SET LOCAL row_security = off");
            return h.createQuery("SELECT count(*) FROM policy_conflicts").mapTo(Long.class).one();
        })).hasMessageContaining("row-level security");
    }

    private long countAsTenantWithoutOrg(Handle handle) {
        return handle.inTransaction(h -> {
            h.execute("SET LOCAL ROLE " + ScopedTransactions.TENANT_ROLE);
            return h.createQuery("SELECT count(*) FROM policy_conflicts").mapTo(Long.class).one();
        });
    }

    private String inboxStatusOf(UUID id) {
        return transactions.crossTenant(h -> h.createQuery("SELECT inbox_status FROM policy_conflicts WHERE id = :id")
                .bind("id", id).mapTo(String.class).one());
    }

    private UUID insert(UUID org, String dedupKey) {
        return TenantConflicts.insert(transactions, org, dedupKey);
    }
}
