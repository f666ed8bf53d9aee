package io.mergesynthesis.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.worker.WorkerFixture.Replica;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.statement.StatementContext;
import org.jdbi.v3.core.statement.StatementCustomizer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Each conflict's transactions run under its own org's scope and the tenant role; a wrong scope fails closed. */
class OrgScopeTest {

    /** What the database said about the session just before one of the worker's statements ran. */
    record Seen(String statement, String role, String orgId, String rowSecurity) {
    }

    /** Asks the session, on the statement's own connection and transaction, who it is and what it may see. */
    static final class SessionProbe implements StatementCustomizer {
        final List<Seen> seen = new CopyOnWriteArrayList<>();

        @Override
        public void beforeExecution(PreparedStatement statement, StatementContext ctx) throws SQLException {
            String sql = ctx.getRenderedSql();
            String kind = sql.contains("FOR UPDATE SKIP LOCKED") ? "claim"
                    : sql.contains("SET suggested_merge") ? "store"
                    : sql.contains("FROM policy_conflicts WHERE id") ? "load" : null;
            if (kind == null) {
                return;
            }
            Connection connection = ctx.getConnection();
            try (Statement probe = connection.createStatement();
                 ResultSet rs = probe.executeQuery("SELECT current_user, current_setting('app.org_id', true), "
                         + "current_setting('row_security')")) {
                rs.next();
                seen.add(new Seen(kind, rs.getString(1), rs.getString(2), rs.getString(3)));
            }
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void loadAndStoreRunAsTheTenantScopedToTheRowsOrgAndTheClaimAsTheSweep() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID id = fixture.insertConflict("jira.create_issue");
            String org = fixture.column(id, "org_id");
            SessionProbe probe = new SessionProbe();
            Replica replica = fixture.replica(WorkerFixture.settings("scoped"), WorkerFixture.stub());
            replica.transactions().jdbi().addCustomizer(probe);
            replica.pool().start();
            WorkerFixture.await("the conflict done", Duration.ofSeconds(20),
                    () -> "done".equals(fixture.column(id, "synthesis_state")));

            assertThat(probe.seen).filteredOn(s -> s.statement().equals("claim")).isNotEmpty()
                    .allSatisfy(s -> {
                        assertThat(s.role()).isEqualTo("merge_synthesis_sweep");
                        assertThat(s.rowSecurity()).isEqualTo("off");
                    });
            assertThat(probe.seen).filteredOn(s -> !s.statement().equals("claim"))
                    .extracting(Seen::statement).containsExactly("load", "store");
            assertThat(probe.seen).filteredOn(s -> !s.statement().equals("claim")).allSatisfy(s -> {
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
            Replica replica = fixture.replica(WorkerFixture.settings("misscoped"), calls,
                    builder -> builder.orgScope(rowOrg -> someoneElse));
            replica.pool().start();

            WorkerFixture.await("the failed load", Duration.ofSeconds(20),
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
