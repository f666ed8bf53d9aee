package io.mergesynthesis.service.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.db.DataSourceFactory;
import io.dropwizard.db.ManagedDataSource;
import io.mergesynthesis.service.testing.TestDatabase;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A one-trip batch is one transaction: every statement under the scope it names, nothing left behind on the
 * pooled connection, all or nothing on failure.
 */
class OneTripBatchTest {

    private static final UUID ORG_A = UUID.fromString("00000000-0000-0000-0000-00000000000a");
    private static final UUID ORG_B = UUID.fromString("00000000-0000-0000-0000-00000000000b");
    private static final String WHO = "SELECT current_user, current_setting('app.org_id', true), "
            + "current_setting('row_security')";

    private final TestDatabase database = TestDatabase.fresh();
    private final Jdbi admin = database.jdbi();
    private ManagedDataSource dataSource;
    /** One pooled connection, so that what one batch leaves on it would show in the next use. */
    private ScopedTransactions pooled;

    @BeforeEach
    void onePooledConnection() {
        DataSourceFactory factory = database.dataSourceFactory();
        factory.setMinSize(1);
        factory.setInitialSize(1);
        factory.setMaxSize(1);
        dataSource = factory.build(new MetricRegistry(), "one-trip");
        pooled = new ScopedTransactions(Jdbi.create(dataSource), dataSource::getConnection);
        admin.useHandle(handle -> handle.execute("""
                CREATE TABLE trip_probe (org_id uuid NOT NULL, note text NOT NULL);
                ALTER TABLE trip_probe ENABLE ROW LEVEL SECURITY;
                CREATE POLICY trip_probe_org ON trip_probe
                    USING (org_id = current_org_id()) WITH CHECK (org_id = current_org_id());
                GRANT SELECT, INSERT, UPDATE ON trip_probe TO merge_synthesis_tenant, merge_synthesis_sweep;
                INSERT INTO trip_probe VALUES
                    ('00000000-0000-0000-0000-00000000000a', 'a'), ('00000000-0000-0000-0000-00000000000b', 'b');
                """));
    }

    @AfterEach
    void closePool() throws Exception {
        dataSource.stop();
    }

    private record Who(String role, String org, String rowSecurity) {
    }

    private static List<Who> who(ResultSet rs) throws SQLException {
        List<Who> rows = new ArrayList<>();
        while (rs.next()) {
            rows.add(new Who(rs.getString(1), rs.getString(2), rs.getString(3)));
        }
        return rows;
    }

    private static List<String> notes(ResultSet rs) throws SQLException {
        List<String> notes = new ArrayList<>();
        while (rs.next()) {
            notes.add(rs.getString(1));
        }
        return notes;
    }

    @Test
    void eachTenantStatementRunsUnderTheOrgItNamesAndSeesOnlyThatOrgsRows() {
        OneTripBatch batch = OneTripBatch.tenant();
        OneTripBatch.Result<List<Who>> first = batch.query(ORG_A, WHO, Map.of(), OneTripBatchTest::who);
        OneTripBatch.Result<List<String>> aRows = batch.query(ORG_A, "SELECT note FROM trip_probe", Map.of(),
                OneTripBatchTest::notes);
        OneTripBatch.Result<List<Who>> second = batch.query(ORG_B, WHO, Map.of(), OneTripBatchTest::who);
        OneTripBatch.Result<List<String>> bRows = batch.query(ORG_B, "SELECT note FROM trip_probe", Map.of(),
                OneTripBatchTest::notes);
        batch.run(pooled);

        assertThat(first.get()).containsExactly(new Who("merge_synthesis_tenant", ORG_A.toString(), "on"));
        assertThat(second.get()).containsExactly(new Who("merge_synthesis_tenant", ORG_B.toString(), "on"));
        assertThat(aRows.get()).containsExactly("a");
        assertThat(bRows.get()).containsExactly("b");
    }

    @Test
    void aTenantUpdateOfAnotherOrgsRowChangesNothing() {
        OneTripBatch batch = OneTripBatch.tenant();
        OneTripBatch.Result<Integer> own = batch.update(ORG_A, "UPDATE trip_probe SET note = :note", Map.of(
                "note", "a2"));
        OneTripBatch.Result<Integer> other = batch.update(ORG_A,
                "UPDATE trip_probe SET note = :note WHERE org_id = :org", Map.of("note", "x", "org", ORG_B));
        batch.run(pooled);

        assertThat(own.get()).isEqualTo(1);
        assertThat(other.get()).isZero();
        List<String> stored = admin.withHandle(h -> h.createQuery("SELECT note FROM trip_probe ORDER BY note")
                .mapTo(String.class).list());
        assertThat(stored).containsExactly("a2", "b");
    }

    @Test
    void aCrossTenantBatchRunsAsTheSweepWithRowSecurityOff() {
        OneTripBatch batch = OneTripBatch.crossTenant();
        OneTripBatch.Result<List<Who>> seen = batch.query(WHO, Map.of(), OneTripBatchTest::who);
        OneTripBatch.Result<List<String>> rows = batch.query("SELECT note FROM trip_probe ORDER BY note", Map.of(),
                OneTripBatchTest::notes);
        batch.run(pooled);

        assertThat(seen.get()).singleElement().satisfies(w -> {
            assertThat(w.role()).isEqualTo("merge_synthesis_sweep");
            assertThat(w.rowSecurity()).isEqualTo("off");
        });
        assertThat(rows.get()).containsExactly("a", "b");
    }

    @Test
    void nothingTheBatchSetOutlivesIt() {
        OneTripBatch batch = OneTripBatch.tenant();
        batch.query(ORG_A, WHO, Map.of(), OneTripBatchTest::who);
        batch.run(pooled);

        List<Who> after = pooled.jdbi().withHandle(handle -> handle.createQuery(WHO)
                .map((rs, ctx) -> new Who(rs.getString(1), rs.getString(2), rs.getString(3))).list());
        assertThat(after).singleElement().satisfies(w -> {
            assertThat(w.role()).isEqualTo(database.user());
            assertThat(w.org()).isNullOrEmpty();
            assertThat(w.rowSecurity()).isEqualTo("on");
        });
    }

    @Test
    void aBatchThatDoesNotWaitForTheDiskSaysSoOnlyForItself() {
        // The test server does not wait for the disk at all; the pool's one connection is made to, as a
        // production server does.
        pooled.jdbi().useHandle(handle -> handle.execute("SET synchronous_commit = on"));
        OneTripBatch batch = OneTripBatch.crossTenant().withoutWaitingForDisk();
        OneTripBatch.Result<String> inside = batch.query("SELECT current_setting('synchronous_commit')", Map.of(),
                rs -> rs.next() ? rs.getString(1) : null);
        batch.run(pooled);

        assertThat(inside.get()).isEqualTo("off");
        String after = pooled.jdbi().withHandle(handle -> handle.createQuery("SELECT current_setting('synchronous_commit')")
                .mapTo(String.class).one());
        assertThat(after).as("the next transaction on the same pooled connection").isEqualTo("on");
        pooled.jdbi().useHandle(handle -> handle.execute("RESET synchronous_commit"));
    }

    @Test
    void aFailingStatementRollsTheWholeBatchBackAndSaysWhy() {
        OneTripBatch batch = OneTripBatch.tenant();
        batch.update(ORG_A, "INSERT INTO trip_probe VALUES (:org, 'written first')", Map.of("org", ORG_A));
        batch.query(ORG_B, "SELECT 1 / :zero", Map.of("zero", 0), rs -> null);

        assertThatThrownBy(() -> batch.run(pooled))
                .isInstanceOf(OneTripBatch.Failed.class)
                .hasMessageContaining("division by zero")
                .hasRootCauseInstanceOf(SQLException.class);
        int rows = admin.withHandle(h -> h.createQuery("SELECT count(*) FROM trip_probe").mapTo(Integer.class)
                .one());
        assertThat(rows).as("the insert before the failure was rolled back").isEqualTo(2);
    }

    @Test
    void aBatchBehindASavepointIsUndoneAloneAndTheTransactionAroundItCommits() {
        OneTripBatch batch = OneTripBatch.tenant().savepointFirst("probe");
        batch.update(ORG_A, "INSERT INTO trip_probe VALUES (:org, 'inside the batch')", Map.of("org", ORG_A));
        batch.query(ORG_B, "SELECT 1 / :zero", Map.of("zero", 0), rs -> null);

        pooled.inPlainTransaction(connection -> {
            try (Statement before = connection.createStatement()) {
                before.execute("INSERT INTO trip_probe VALUES ('00000000-0000-0000-0000-00000000000a', 'before')");
            }
            assertThatThrownBy(() -> batch.runWithin(connection)).isInstanceOf(OneTripBatch.Failed.class);
            try (Statement undo = connection.createStatement()) {
                undo.execute("ROLLBACK TO SAVEPOINT probe");
            }
            return null;
        });

        List<String> notes = admin.withHandle(h -> h.createQuery("SELECT note FROM trip_probe ORDER BY note")
                .mapTo(String.class).list());
        assertThat(notes).as("the write before the savepoint committed, the batch's own did not")
                .containsExactly("a", "b", "before");
    }

    @Test
    void aBatchThatCommitsLastCommitsTheTransactionAroundItInItsOwnTrip() {
        OneTripBatch batch = OneTripBatch.tenant().savepointFirst("probe").commitLast();
        batch.update(ORG_A, "INSERT INTO trip_probe VALUES (:org, 'inside the batch')", Map.of("org", ORG_A));

        List<String> seenBeforeTheCallersCommit = pooled.inPlainTransaction(connection -> {
            try (Statement before = connection.createStatement()) {
                before.execute("INSERT INTO trip_probe VALUES ('00000000-0000-0000-0000-00000000000a', 'before')");
            }
            batch.runWithin(connection);
            // Another session sees both writes before the caller's commit: the batch committed them.
            return notesSeenByAnotherSession();
        });

        assertThat(seenBeforeTheCallersCommit).containsExactly("a", "b", "before", "inside the batch");
    }

    @Test
    void aFailedBatchSkipsItsCommitAndLeavesTheTransactionToTheCaller() {
        OneTripBatch batch = OneTripBatch.tenant().savepointFirst("probe").commitLast();
        batch.update(ORG_A, "INSERT INTO trip_probe VALUES (:org, 'inside the batch')", Map.of("org", ORG_A));
        batch.query(ORG_B, "SELECT 1 / :zero", Map.of("zero", 0), rs -> null);

        List<String> seenBeforeTheCallersCommit = pooled.inPlainTransaction(connection -> {
            try (Statement before = connection.createStatement()) {
                before.execute("INSERT INTO trip_probe VALUES ('00000000-0000-0000-0000-00000000000a', 'before')");
            }
            assertThatThrownBy(() -> batch.runWithin(connection)).isInstanceOf(OneTripBatch.Failed.class);
            try (Statement undo = connection.createStatement()) {
                undo.execute("ROLLBACK TO SAVEPOINT probe");
            }
            return notesSeenByAnotherSession();
        });

        assertThat(seenBeforeTheCallersCommit).as("nothing committed by the failed batch").containsExactly("a", "b");
        assertThat(notesSeenByAnotherSession()).as("the caller's commit kept the write before the savepoint")
                .containsExactly("a", "b", "before");
        assertThatThrownBy(() -> OneTripBatch.tenant().commitLast().run(pooled))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("commits on its own");
    }

    private List<String> notesSeenByAnotherSession() {
        return admin.withHandle(h -> h.createQuery("SELECT note FROM trip_probe ORDER BY note")
                .mapTo(String.class).list());
    }

    @Test
    void aBatchRefusesToJoinAnOpenTransactionAndAStatementMayNotHideASecond() {
        OneTripBatch batch = OneTripBatch.tenant();
        batch.query(ORG_A, WHO, Map.of(), OneTripBatchTest::who);
        assertThatThrownBy(() -> pooled.inPlainTransaction(connection -> {
            batch.run(connection);
            return null;
        })).isInstanceOf(IllegalStateException.class).hasMessageContaining("open transaction");

        assertThatThrownBy(() -> OneTripBatch.tenant().update(ORG_A, "UPDATE trip_probe SET note = 'x'; "
                + "UPDATE trip_probe SET note = 'y'", Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one statement at a time");
        assertThatThrownBy(() -> OneTripBatch.tenant().update(ORG_A, "UPDATE trip_probe SET note = :note",
                Map.of())).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(":note");
    }
}
