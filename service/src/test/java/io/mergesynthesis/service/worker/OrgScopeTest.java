package io.mergesynthesis.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.worker.WorkerFixture.Replica;
import io.mergesynthesis.testsupport.Wait;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Each conflict's transactions run under its own org's scope and the tenant role; a wrong scope fails closed. */
class OrgScopeTest {

    /** What the database said about the session as one of the worker's statements touched the conflict. */
    record Seen(String statement, String role, String orgId, String rowSecurity) {
    }

    /**
     * Installs, in this test's database only, a probe that records who the session is and what it may see at
     * the moment a statement touches a conflict: a restrictive row-level security policy whose check writes a
     * "read" line whenever the tenant role reads a row (a load, or the store reading the row it updates), and an
     * update trigger that writes a "claim" or "store" line by the state the update leaves. The worker sends
     * several statements in one round trip, so the session can only be asked from inside the database.
     */
    private static void installScopeProbe(WorkerFixture fixture) {
        fixture.admin.useHandle(handle -> handle.execute("""
                CREATE TABLE scope_probe (
                    seq bigserial PRIMARY KEY, statement text, role text, org_id text, row_security text);
                GRANT INSERT ON scope_probe TO merge_synthesis_tenant, merge_synthesis_sweep;
                GRANT USAGE ON SEQUENCE scope_probe_seq_seq TO merge_synthesis_tenant, merge_synthesis_sweep;
                CREATE FUNCTION record_scope(statement text) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
                BEGIN
                    INSERT INTO scope_probe (statement, role, org_id, row_security)
                    VALUES (statement, current_user, current_setting('app.org_id', true),
                            current_setting('row_security'));
                    RETURN true;
                END $$;
                CREATE POLICY scope_probe_read ON policy_conflicts AS RESTRICTIVE FOR SELECT
                    TO merge_synthesis_tenant USING (record_scope('read'));
                CREATE FUNCTION record_update_scope() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    PERFORM record_scope(CASE NEW.synthesis_state WHEN 'in_progress' THEN 'claim'
                                                                  WHEN 'done' THEN 'store'
                                                                  ELSE NEW.synthesis_state END);
                    RETURN NULL;
                END $$;
                CREATE TRIGGER scope_probe_update AFTER UPDATE ON policy_conflicts
                    FOR EACH ROW EXECUTE FUNCTION record_update_scope();
                """));
    }

    /**
     * Moves a conflict to the org {@code someoneElse} the moment a claim leases it. The claim hands the worker
     * the org it read for the row, so every transaction the worker then scopes to that org is scoped to the wrong
     * one for the row, as a bug in the scoping would have it.
     */
    private static void moveToAnotherOrgOnceClaimed(WorkerFixture fixture, UUID someoneElse) {
        fixture.admin.useHandle(handle -> handle.execute("""
                CREATE FUNCTION move_claimed_row() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
                BEGIN
                    UPDATE policy_conflicts SET org_id = '%s' WHERE id = NEW.id;
                    RETURN NULL;
                END $$;
                CREATE TRIGGER move_claimed_row AFTER UPDATE ON policy_conflicts FOR EACH ROW
                    WHEN (OLD.synthesis_state = 'pending' AND NEW.synthesis_state = 'in_progress')
                    EXECUTE FUNCTION move_claimed_row();
                """.formatted(someoneElse)));
    }

    private static List<Seen> seen(WorkerFixture fixture) {
        return fixture.admin.withHandle(handle -> handle.createQuery(
                        "SELECT statement, role, org_id, row_security FROM scope_probe ORDER BY seq")
                .map((rs, ctx) -> new Seen(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)))
                .list());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void loadAndStoreRunAsTheTenantScopedToTheRowsOrgAndTheClaimAsTheSweep() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID id = fixture.insertConflict("jira.create_issue");
            String org = fixture.column(id, "org_id");
            installScopeProbe(fixture);
            Replica replica = fixture.replica(WorkerFixture.settings("scoped"), WorkerFixture.stub());
            replica.pool().start();
            Wait.until("the conflict done", Duration.ofSeconds(20),
                    () -> "done".equals(fixture.column(id, "synthesis_state")));
            replica.pool().stop();

            List<Seen> seen = seen(fixture);
            assertThat(seen).extracting(Seen::statement).as("claimed, read back, then stored")
                    .startsWith("claim", "read").endsWith("store").containsOnlyOnce("claim", "store")
                    .containsOnly("claim", "read", "store");
            assertThat(seen).filteredOn(s -> s.statement().equals("claim")).allSatisfy(s -> {
                assertThat(s.role()).isEqualTo("merge_synthesis_sweep");
                assertThat(s.rowSecurity()).isEqualTo("off");
            });
            assertThat(seen).filteredOn(s -> !s.statement().equals("claim")).allSatisfy(s -> {
                assertThat(s.role()).isEqualTo("merge_synthesis_tenant");
                assertThat(s.orgId()).isEqualTo(org);
                assertThat(s.rowSecurity()).isEqualTo("on");
            });
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aWrongOrgScopeFailsTheLoadAndLeavesTheRowAlone() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID id = fixture.insertConflict("jira.create_issue");
            CountingSynthesizer calls = new CountingSynthesizer(WorkerFixture.stub());
            UUID someoneElse = UUID.randomUUID();
            moveToAnotherOrgOnceClaimed(fixture, someoneElse);
            Replica replica = fixture.replica(WorkerFixture.settings("misscoped"), calls);
            replica.pool().start();

            Wait.until("the failed load", Duration.ofSeconds(20),
                    () -> replica.failures(FailureReason.LOAD_ROW) >= 1);
            replica.pool().stop();

            assertThat(calls.total.get()).isZero();
            // The claim (cross-tenant) leased it; nothing under the wrong scope could touch it after that.
            assertThat(fixture.column(id, "synthesis_state")).isEqualTo("in_progress");
            assertThat(fixture.column(id, "lease_owner")).isEqualTo("misscoped");
            assertThat(fixture.column(id, "last_failure_reason")).isNull();
            assertThat(fixture.column(id, "suggested_merge")).isNull();
            assertThat(fixture.events("merge_synthesized")).isZero();
            assertThat(replica.attempts(Outcome.SKIPPED)).as("the release under the wrong org found no row")
                    .isEqualTo(1);
        }
    }
}
