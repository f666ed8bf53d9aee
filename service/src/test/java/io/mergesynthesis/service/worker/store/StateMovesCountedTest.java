package io.mergesynthesis.service.worker.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.core.Resolution;
import io.mergesynthesis.service.core.StoredConflict;
import io.mergesynthesis.service.core.SynthesisState;
import io.mergesynthesis.service.db.AttemptHistory;
import io.mergesynthesis.service.db.ConflictCounts;
import io.mergesynthesis.service.db.ConflictStore;
import io.mergesynthesis.service.db.MarkedConflicts;
import io.mergesynthesis.service.db.OneTripBatch;
import io.mergesynthesis.service.db.OrgSynthesisSettings;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.worker.WorkerFixture;
import io.mergesynthesis.synthesis.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Since schema 20 the count trigger fires only for statements that set an inbox status or an org, so each
 * statement that moves a conflict between synthesis states on its own writes the count row of that move. Each is
 * run here, one at a time, and the kept counts are compared with a count of the rows after every one; an update
 * by hand, which no statement counts, is named by the drift check and repaired by a recount.
 */
class StateMovesCountedTest {

    private static final ConflictLeases.Ending NO_HISTORY = new ConflictLeases.Ending(1, null, null, null, List.of());

    @Test
    void everyStatementThatMovesAConflictCountsItsMove() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID handedBack = fixture.insertConflict("jira.hand-back", "org-a");
            UUID retried = fixture.insertConflict("jira.retry", "org-a");
            UUID waiting = fixture.insertConflict("jira.waiting", "org-a");
            UUID notNeeded = fixture.insertConflict("jira.not-needed", "org-b");
            UUID marked = fixture.insertConflict("jira.marked", "org-b");
            UUID merged = fixture.insertConflict("jira.merged", "org-b");
            ScopedTransactions tx = fixture.transactionsOnOwnPool("t", 2);
            assertExact(fixture, "after ingest");

            List<Lease> leases = tx.crossTenant(h -> ConflictLeases.claim(h, "r1", 10, Duration.ofSeconds(30),
                    Ticker.SYSTEM));
            assertThat(leases).hasSize(6);
            assertExact(fixture, "after the claim");

            Lease handBack = lease(leases, handedBack);
            Boolean handed = write(tx, trip -> ConflictLeases.handBack(trip, handBack.orgId(), handBack, null,
                    Duration.ZERO, NO_HISTORY));
            assertThat(handed).isTrue();
            assertExact(fixture, "after a hand-back");

            Lease retry = lease(leases, retried);
            Optional<ConflictLeases.Release> released = write(tx, trip -> ConflictLeases.releaseForRetry(trip,
                    retry.orgId(), retry, "synthesizer", Duration.ZERO, NO_HISTORY));
            assertThat(released).isPresent();
            assertExact(fixture, "after a release for a retry");

            Lease budget = lease(leases, waiting);
            Lease needless = lease(leases, notNeeded);
            Boolean parkedWaiting = write(tx, trip -> ConflictLeases.park(trip, budget.orgId(), budget,
                    "waiting_budget", NO_HISTORY));
            Boolean parkedNeedless = write(tx, trip -> ConflictLeases.park(trip, needless.orgId(), needless,
                    "not_needed", NO_HISTORY));
            assertThat(List.of(parkedWaiting, parkedNeedless)).containsOnly(true);
            assertExact(fixture, "after parking in waiting_budget and not_needed");

            Lease mark = lease(leases, marked);
            Boolean stamped = write(tx, trip -> ConflictLeases.markPermanent(trip, mark.orgId(), mark,
                    "invalid_json", "{\"attempts\": 3}", new ConflictLeases.Ending(1,
                            AttemptHistory.PERMANENT_FAILURE, "invalid_json", "bad", List.of())));
            assertThat(stamped).isTrue();
            assertExact(fixture, "after marking");

            Lease merge = lease(leases, merged);
            Integer stored = write(tx, trip -> ConflictLeases.storeMerge(trip, merge.orgId(), merge,
                    "{\"schema_version\": 1}", "{}", 1, List.of()));
            assertThat(stored).isEqualTo(1);
            assertExact(fixture, "after a merge");

            int resumed = tx.crossTenant(h -> OrgSynthesisSettings.resumeWaiting(h, Optional.empty()));
            assertThat(resumed).isEqualTo(1);
            assertThat(fixture.column(waiting, "synthesis_state")).isEqualTo("pending");
            assertExact(fixture, "after the budget let a conflict out");

            UUID orgB = mark.orgId();
            Optional<MarkedConflicts.Requeued> requeued = tx.inOrg(orgB,
                    h -> MarkedConflicts.requeueOne(h, orgB, marked, "{}", "a test"));
            assertThat(requeued).isPresent();
            assertThat(fixture.column(marked, "synthesis_state")).isEqualTo("pending");
            assertExact(fixture, "after a re-queue");

            // The trigger still counts what an admin does, with any state the conflict is in.
            Optional<StoredConflict> acknowledged = tx.inOrg(orgB, h -> ConflictStore.acknowledge(h, orgB,
                    notNeeded));
            Optional<StoredConflict> resolved = tx.inOrg(orgB, h -> ConflictStore.resolve(h, orgB, merged,
                    Resolution.MANUAL, "done"));
            assertThat(acknowledged).isPresent();
            assertThat(resolved).isPresent();
            assertExact(fixture, "after an acknowledgement and a resolution");

            // An update by hand is counted by nothing: the drift check names it, and a recount repairs it.
            fixture.admin.useHandle(h -> h.createUpdate("""
                    UPDATE policy_conflicts SET synthesis_state = 'not_needed' WHERE id = :id""")
                    .bind("id", handedBack).execute());
            List<ConflictCounts.Drift> drift = fixture.admin.withHandle(ConflictCounts::drift);
            assertThat(drift).extracting(ConflictCounts.Drift::state)
                    .containsExactlyInAnyOrder(SynthesisState.PENDING, SynthesisState.NOT_NEEDED);
            fixture.admin.useTransaction(ConflictCounts::recount);
            assertExact(fixture, "after a recount");
        }
    }

    private static void assertExact(WorkerFixture fixture, String when) {
        assertThat(fixture.admin.withHandle(ConflictCounts::drift)).as("kept counts that differ " + when).isEmpty();
    }

    private static Lease lease(List<Lease> leases, UUID id) {
        return leases.stream().filter(l -> l.conflictId().equals(id)).findFirst().orElseThrow();
    }

    private static <T> T write(ScopedTransactions tx, Function<OneTripBatch, OneTripBatch.Result<T>> statement) {
        OneTripBatch trip = OneTripBatch.tenant();
        OneTripBatch.Result<T> applied = statement.apply(trip);
        trip.run(tx);
        return applied.get();
    }
}
