package io.mergesynthesis.service.worker.attempt;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.db.OneTripBatch;
import io.mergesynthesis.service.worker.PayingSynthesizer;
import io.mergesynthesis.service.worker.WorkerFixture;
import io.mergesynthesis.service.worker.WorkerFixture.Replica;
import io.mergesynthesis.service.worker.store.ConflictLeases;
import io.mergesynthesis.service.worker.store.Lease;
import io.mergesynthesis.service.worker.store.LeaseReader;
import io.mergesynthesis.synthesis.ProviderCall.Disposition;
import io.mergesynthesis.synthesis.ProviderCall.Pass;
import io.mergesynthesis.synthesis.Ticker;
import io.mergesynthesis.testsupport.Wait;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A store claims the next conflicts for the workers it frees in its own transaction, and never at its cost. */
class StoreRefillTest {

    /** Records, inside the database, which transaction each claim and store of a conflict ran in. */
    private static void installTransactionProbe(WorkerFixture fixture) {
        fixture.admin.useHandle(handle -> handle.execute("""
                CREATE TABLE tx_probe (seq bigserial PRIMARY KEY, statement text, conflict_id uuid, tx bigint);
                GRANT INSERT ON tx_probe TO merge_synthesis_tenant, merge_synthesis_sweep;
                GRANT USAGE ON SEQUENCE tx_probe_seq_seq TO merge_synthesis_tenant, merge_synthesis_sweep;
                CREATE FUNCTION record_tx() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    INSERT INTO tx_probe (statement, conflict_id, tx)
                    VALUES (CASE NEW.synthesis_state WHEN 'in_progress' THEN 'claim' WHEN 'done' THEN 'store'
                                                     ELSE NEW.synthesis_state END,
                            NEW.id, txid_current());
                    RETURN NULL;
                END $$;
                CREATE TRIGGER tx_probe_update AFTER UPDATE ON policy_conflicts
                    FOR EACH ROW EXECUTE FUNCTION record_tx();
                """));
    }

    private record Seen(String statement, UUID conflictId, long tx) {
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aStoreClaimsTheFreedWorkersNextConflictInTheSameTransaction() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            installTransactionProbe(fixture);
            List<UUID> ids = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                ids.add(fixture.insertConflict("jira.create_issue", "org-" + i));
            }
            // Paid merges: the pool holds no lease ahead of its one worker (ADR 0077), so every claim after the
            // first is one a store makes for the worker it frees.
            PayingSynthesizer paying = new PayingSynthesizer(merge -> PayingSynthesizer.paid(merge,
                    PayingSynthesizer.call(Pass.PRIMARY, "small", 100, 20, "0.000400", Disposition.ANSWER)));
            Replica replica = fixture.replica(WorkerFixture.settings("refill").workers(1), paying);
            replica.pool().start();
            Wait.until("all three done", Duration.ofSeconds(20),
                    () -> fixture.count("synthesis_state = 'done'") == 3);
            replica.pool().stop();

            List<Seen> seen = fixture.admin.withHandle(handle -> handle.createQuery(
                            "SELECT statement, conflict_id, tx FROM tx_probe ORDER BY seq")
                    .map((rs, ctx) -> new Seen(rs.getString(1), rs.getObject(2, UUID.class), rs.getLong(3)))
                    .list());
            assertThat(seen).filteredOn(s -> s.statement().equals("store")).hasSize(3);
            assertThat(seen).filteredOn(s -> s.statement().equals("claim")).hasSize(3);
            // One worker: the claim loop claims the first conflict; each store then claims the next one.
            List<Seen> claimsInStores = seen.stream()
                    .filter(s -> s.statement().equals("claim"))
                    .filter(claim -> seen.stream().anyMatch(s -> s.statement().equals("store")
                            && s.tx() == claim.tx() && !s.conflictId().equals(claim.conflictId())))
                    .toList();
            assertThat(claimsInStores).as("claims made in the transaction of the store before them").hasSize(2);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aClaimThatFailsCostsTheStoresInItsTripNothing() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            fixture.insertConflict("jira.create_issue", "org-a");
            fixture.insertConflict("jira.create_issue", "org-b");
            Replica replica = fixture.replica(WorkerFixture.settings("direct"), WorkerFixture.stub());
            List<Lease> leases = replica.transactions().crossTenant(
                    handle -> ConflictLeases.claim(handle, "direct", 10, Duration.ofSeconds(30), Ticker.SYSTEM));
            assertThat(leases).hasSize(2);

            AtomicInteger claimsTried = new AtomicInteger();
            AtomicInteger claimsTaken = new AtomicInteger();
            AttemptCompleter.Refill failingClaim = new AttemptCompleter.Refill() {
                @Override
                public int wanted(int freed) {
                    return freed;
                }

                @Override
                public OneTripBatch.Result<List<Lease>> claim(OneTripBatch trip, int limit) {
                    claimsTried.incrementAndGet();
                    return trip.query("SELECT 1 / :zero", Map.of("zero", 0), rs -> List.of());
                }

                @Override
                public LeaseReader.ReadAhead readBack(Connection connection, List<Lease> claimed) {
                    throw new AssertionError("a claim that failed has nothing to read back");
                }

                @Override
                public void claimed(List<Lease> claimed, LeaseReader.ReadAhead readAhead) {
                    claimsTaken.incrementAndGet();
                }
            };
            AttemptCompleter completer = new AttemptCompleter(replica.transactions(), 1, 8, WorkerFixture.FIXED,
                    Ticker.SYSTEM);
            completer.start("failing-claim", failingClaim);
            List<CompletableFuture<AttemptCompleter.Written>> stored = new ArrayList<>();
            for (Lease lease : leases) {
                stored.add(completer.complete(new AttemptResult.Stored(lease, lease.orgId(),
                        "{\"merge\": \"stored\"}", "{\"attempt\": 1}")));
            }
            for (CompletableFuture<AttemptCompleter.Written> future : stored) {
                assertThat(future.get(20, TimeUnit.SECONDS).applied()).isTrue();
            }
            completer.stop();

            assertThat(claimsTried.get()).as("the claim was tried with the stores").isPositive();
            assertThat(claimsTaken.get()).isZero();
            assertThat(fixture.count("synthesis_state = 'done'")).isEqualTo(2);
            assertThat(fixture.events("merge_synthesized")).isEqualTo(2);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void whatAStoreClaimsIsReadBackUnderItsOrgsScopeBeforeTheSameCommit() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            installTransactionProbe(fixture);
            UUID first = fixture.insertConflict("jira.create_issue", "org-a");
            Replica replica = fixture.replica(WorkerFixture.settings("read-back"), WorkerFixture.stub());
            List<Lease> held = replica.transactions().crossTenant(
                    handle -> ConflictLeases.claim(handle, "read-back", 1, Duration.ofSeconds(30), Ticker.SYSTEM));
            UUID second = fixture.insertConflict("jira.create_issue", "org-b");

            LeaseReader reader = new LeaseReader(replica.transactions());
            List<Long> readBackTx = new ArrayList<>();
            List<LeaseReader.ReadAhead> delivered = new ArrayList<>();
            AttemptCompleter completer = new AttemptCompleter(replica.transactions(), 1, 8, WorkerFixture.FIXED,
                    Ticker.SYSTEM);
            completer.start("read-back", refill("read-back", readBackTx, reader, delivered));
            Lease lease = held.get(0);
            assertThat(completer.complete(new AttemptResult.Stored(lease, lease.orgId(), "{\"merge\": \"stored\"}",
                    "{\"attempt\": 1}")).get(20, TimeUnit.SECONDS).applied()).isTrue();
            completer.stop();

            assertThat(delivered).hasSize(1);
            LeaseReader.ReadAhead readAhead = delivered.get(0);
            assertThat(readAhead.rows()).containsOnlyKeys(second);
            assertThat(readAhead.rows().get(second)).as("read under org-b's scope").isPresent();
            long storeTx = fixture.admin.withHandle(handle -> handle.createQuery(
                    "SELECT tx FROM tx_probe WHERE statement = 'store' AND conflict_id = :id")
                    .bind("id", first).mapTo(Long.class).one());
            long claimTx = fixture.admin.withHandle(handle -> handle.createQuery(
                    "SELECT tx FROM tx_probe WHERE statement = 'claim' AND conflict_id = :id")
                    .bind("id", second).mapTo(Long.class).one());
            assertThat(List.of(claimTx, readBackTx.get(0))).as("claim and read-back in the store's transaction")
                    .containsOnly(storeTx);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aReadBackThatFailsCostsTheStoreAndTheClaimNothing() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            fixture.insertConflict("jira.create_issue", "org-a");
            Replica replica = fixture.replica(WorkerFixture.settings("bad-read"), WorkerFixture.stub());
            List<Lease> held = replica.transactions().crossTenant(
                    handle -> ConflictLeases.claim(handle, "bad-read", 1, Duration.ofSeconds(30), Ticker.SYSTEM));
            UUID second = fixture.insertConflict("jira.create_issue", "org-b");

            // The read joins the org's settings; without the grant on them it fails, as any broken read would.
            fixture.admin.useHandle(handle -> handle.execute(
                    "REVOKE SELECT ON org_synthesis_settings FROM merge_synthesis_tenant"));
            LeaseReader reader = new LeaseReader(replica.transactions());
            List<LeaseReader.ReadAhead> delivered = new ArrayList<>();
            AttemptCompleter completer = new AttemptCompleter(replica.transactions(), 1, 8, WorkerFixture.FIXED,
                    Ticker.SYSTEM);
            completer.start("bad-read", refill("bad-read", new ArrayList<>(), reader, delivered));
            Lease lease = held.get(0);
            assertThat(completer.complete(new AttemptResult.Stored(lease, lease.orgId(), "{\"merge\": \"stored\"}",
                    "{\"attempt\": 1}")).get(20, TimeUnit.SECONDS).applied()).isTrue();
            completer.stop();

            assertThat(delivered).hasSize(1);
            assertThat(delivered.get(0).rowOf(new Lease(second, null, "bad-read", 1, false, false, null)))
                    .as("nothing read ahead: the worker reads its own row").isNull();
            assertThat(fixture.count("synthesis_state = 'done'")).isEqualTo(1);
            assertThat(fixture.count("synthesis_state = 'in_progress' AND lease_owner = 'bad-read'"))
                    .as("the claim committed with the store").isEqualTo(1);
        }
    }

    /** A refill that claims like the pool and reads back with {@code reader}, noting the read's transaction. */
    private static AttemptCompleter.Refill refill(String owner, List<Long> readBackTx, LeaseReader reader,
                                                List<LeaseReader.ReadAhead> delivered) {
        return new AttemptCompleter.Refill() {
            @Override
            public int wanted(int freed) {
                return freed;
            }

            @Override
            public OneTripBatch.Result<List<Lease>> claim(OneTripBatch trip, int limit) {
                return ConflictLeases.claim(trip, owner, limit, Duration.ofSeconds(30), Ticker.SYSTEM);
            }

            @Override
            public LeaseReader.ReadAhead readBack(Connection connection, List<Lease> claimed) {
                try (Statement statement = connection.createStatement();
                     ResultSet tx = statement.executeQuery("SELECT txid_current()")) {
                    tx.next();
                    readBackTx.add(tx.getLong(1));
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
                return reader.readThenCommit(connection, claimed);
            }

            @Override
            public void claimed(List<Lease> claimed, LeaseReader.ReadAhead readAhead) {
                delivered.add(readAhead);
            }
        };
    }
}
