package io.mergesynthesis.service.worker.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.db.AttemptHistory;
import io.mergesynthesis.service.db.OneTripBatch;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.db.UsageLedger;
import io.mergesynthesis.service.worker.WorkerFixture;
import io.mergesynthesis.synthesis.MergeCheck;
import io.mergesynthesis.synthesis.Ticker;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The worker's statements on their own, on the real database with its row-level security: each write is fenced
 * on the lease, a hand-back takes the attempt back, a parked row leaves the claim, and a merge's ledger rows
 * commit with it and settle a call put on record early.
 */
class ConflictLeasesTest {

    /** The end of a lease with no history line and no calls, as for a lease no worker started. */
    private static final ConflictLeases.Ending NO_HISTORY = new ConflictLeases.Ending(1, null, null, null, List.of());

    @Test
    void aHandBackTakesTheAttemptBackAndAParkedRowIsNoLongerClaimable() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID handedBack = fixture.insertConflict("jira.a");
            UUID parked = fixture.insertConflict("jira.b");
            ScopedTransactions tx = fixture.transactionsOnOwnPool("t", 2);
            List<Lease> leases = tx.crossTenant(h -> ConflictLeases.claim(h, "r1", 10, Duration.ofSeconds(10), Ticker.SYSTEM));
            assertThat(leases).hasSize(2);
            Lease first = lease(leases, handedBack);
            Lease second = lease(leases, parked);

            boolean handed = write(tx, trip -> ConflictLeases.handBack(trip, first.orgId(), first, "synthesizer",
                    Duration.ZERO, NO_HISTORY));
            assertThat(handed).isTrue();
            assertThat(fixture.column(handedBack, "attempts")).isEqualTo("0");
            assertThat(fixture.column(handedBack, "synthesis_state")).isEqualTo("pending");
            assertThat(fixture.column(handedBack, "last_failure_reason")).isEqualTo("synthesizer");
            // The lease is gone: a second hand-back, or any write on the same lease, changes nothing.
            boolean again = write(tx, trip -> ConflictLeases.handBack(trip, first.orgId(), first, null, Duration.ZERO,
                    NO_HISTORY));
            assertThat(again).isFalse();

            boolean parkedNow = write(tx, trip -> ConflictLeases.park(trip, second.orgId(), second, "waiting_budget",
                    new ConflictLeases.Ending(1, AttemptHistory.DEFERRED, "budget", "spent", List.of())));
            assertThat(parkedNow).isTrue();
            assertThat(fixture.column(parked, "attempts")).isEqualTo("0");
            List<Lease> next = tx.crossTenant(h -> ConflictLeases.claim(h, "r2", 10, Duration.ofSeconds(10), Ticker.SYSTEM));
            assertThat(next).extracting(Lease::conflictId).containsExactly(handedBack);
        }
    }

    @Test
    void anExpiredLeaseIsClaimedBeforePendingConflictsQueuedLongBeforeIt() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            // Three conflicts queued an hour ago, then one whose holder died: its lease ran out a moment ago,
            // so by not_before alone it would come last of the four.
            UUID first = fixture.insertConflict("jira.old-1");
            UUID second = fixture.insertConflict("jira.old-2");
            UUID third = fixture.insertConflict("jira.old-3");
            UUID orphan = fixture.insertConflict("jira.orphan");
            fixture.admin.useHandle(handle -> handle.createUpdate("""
                            UPDATE policy_conflicts
                            SET not_before = now() - CASE id WHEN :first THEN interval '3 hours'
                                                             WHEN :second THEN interval '2 hours'
                                                             ELSE interval '1 hour' END
                            WHERE id IN (:first, :second, :third)""")
                    .bind("first", first).bind("second", second).bind("third", third).execute());
            fixture.admin.useHandle(handle -> handle.createUpdate("""
                            UPDATE policy_conflicts
                            SET synthesis_state = 'in_progress', attempts = 1, lease_owner = 'killed',
                                lease_expires_at = now() - interval '10 milliseconds',
                                not_before = now() - interval '10 milliseconds'
                            WHERE id = :id""")
                    .bind("id", orphan).execute());
            ScopedTransactions tx = fixture.transactionsOnOwnPool("t", 2);

            List<Lease> one = tx.crossTenant(h -> ConflictLeases.claim(h, "r1", 1, Duration.ofSeconds(10), Ticker.SYSTEM));
            assertThat(one).extracting(Lease::conflictId).containsExactly(orphan);
            assertThat(one.get(0).recovered()).isTrue();
            assertThat(one.get(0).attempts()).isEqualTo(2);

            // The rest of a larger claim still goes to the pending conflicts, oldest first.
            List<Lease> rest = tx.crossTenant(h -> ConflictLeases.claim(h, "r1", 2, Duration.ofSeconds(10), Ticker.SYSTEM));
            assertThat(rest).extracting(Lease::conflictId).containsExactlyInAnyOrder(first, second);
            assertThat(rest).noneMatch(Lease::recovered);
        }
    }

    @Test
    void aClaimTakesExpiredLeasesAndPendingConflictsTogetherUpToItsLimit() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID pending = fixture.insertConflict("jira.pending");
            UUID expired = fixture.insertConflict("jira.expired");
            UUID held = fixture.insertConflict("jira.held");
            fixture.admin.useHandle(handle -> handle.createUpdate("""
                            UPDATE policy_conflicts
                            SET synthesis_state = 'in_progress', attempts = 1, lease_owner = 'other',
                                lease_expires_at = CASE WHEN id = :expired THEN now() - interval '1 second'
                                                        ELSE now() + interval '1 minute' END,
                                not_before = CASE WHEN id = :expired THEN now() - interval '1 second'
                                                  ELSE now() + interval '1 minute' END
                            WHERE id IN (:expired, :held)""")
                    .bind("expired", expired).bind("held", held).execute());
            ScopedTransactions tx = fixture.transactionsOnOwnPool("t", 2);

            List<Lease> claimed = tx.crossTenant(h -> ConflictLeases.claim(h, "r1", 10, Duration.ofSeconds(10), Ticker.SYSTEM));

            // A live lease is nobody else's to take.
            assertThat(claimed).extracting(Lease::conflictId).containsExactlyInAnyOrder(pending, expired);
            assertThat(fixture.column(held, "lease_owner")).isEqualTo("other");
        }
    }

    @Test
    void aStoredMergeSettlesTheCallsPutOnRecordEarlyAndALostLeaseStoresNothingButTheCalls() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID kept = fixture.insertConflict("jira.a");
            UUID lost = fixture.insertConflict("jira.b");
            ScopedTransactions tx = fixture.transactionsOnOwnPool("t", 2);
            List<Lease> leases = tx.crossTenant(h -> ConflictLeases.claim(h, "r1", 10, Duration.ofSeconds(10), Ticker.SYSTEM));
            Lease keptLease = lease(leases, kept);
            Lease lostLease = lease(leases, lost);
            UsageLedger.Entry early = entry("primary", UsageLedger.ANSWER);
            tx.inOrg(keptLease.orgId(), h -> {
                UsageLedger.recordEarly(h, keptLease.orgId(), kept, 1, early);
                return null;
            });
            assertThat(outcomes(fixture, kept)).containsExactly("discarded");

            // The lost lease: another holder took the conflict over meanwhile.
            fixture.admin.useHandle(h -> h.createUpdate(
                    "UPDATE policy_conflicts SET lease_owner = 'someone-else' WHERE id = :id").bind("id", lost).execute());
            OneTripBatch trip = OneTripBatch.tenant();
            OneTripBatch.Result<Integer> storedKept = ConflictLeases.storeMerge(trip, keptLease.orgId(), keptLease,
                    "{\"schema_version\": 1}", "{\"attempt\": 1}", 1, List.of(early, entry("escalation", "failed")));
            OneTripBatch.Result<Integer> storedLost = ConflictLeases.storeMerge(trip, lostLease.orgId(), lostLease,
                    "{\"schema_version\": 1}", "{\"attempt\": 1}", 1, List.of(entry("primary", UsageLedger.ANSWER)));
            trip.run(tx);

            assertThat(storedKept.get()).isEqualTo(1);
            assertThat(storedLost.get()).isZero();
            assertThat(outcomes(fixture, kept)).containsExactlyInAnyOrder("stored", "failed");
            assertThat(outcomes(fixture, lost)).as("paid for, though nothing was stored").containsExactly("discarded");
            assertThat(fixture.column(lost, "suggested_merge")).isNull();
            assertThat(fixture.events("merge_synthesized")).isEqualTo(1);
        }
    }

    @Test
    void aStoredMergeRecordsTheVersionOfTheCheckItPassedOnBothStorePaths() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID free = fixture.insertConflict("jira.a");
            UUID paid = fixture.insertConflict("jira.b");
            UUID waiting = fixture.insertConflict("jira.c");
            ScopedTransactions tx = fixture.transactionsOnOwnPool("t", 2);
            List<Lease> leases = tx.crossTenant(h -> ConflictLeases.claim(h, "r1", 2, Duration.ofSeconds(10), Ticker.SYSTEM));
            Lease freeLease = lease(leases, free);
            Lease paidLease = lease(leases, paid);
            OneTripBatch trip = OneTripBatch.tenant();
            ConflictLeases.storeMerge(trip, freeLease.orgId(), freeLease, "{\"schema_version\": 1}",
                    "{\"attempt\": 1}");
            ConflictLeases.storeMerge(trip, paidLease.orgId(), paidLease, "{\"schema_version\": 1}",
                    "{\"attempt\": 1}", 1, List.of(entry("primary", UsageLedger.ANSWER)));
            trip.run(tx);

            assertThat(fixture.column(free, "merge_check_version")).isEqualTo(String.valueOf(MergeCheck.VERSION));
            assertThat(fixture.column(paid, "merge_check_version")).isEqualTo(String.valueOf(MergeCheck.VERSION));
            assertThat(fixture.column(waiting, "merge_check_version")).as("no merge, no check").isNull();
        }
    }

    private static Lease lease(List<Lease> leases, UUID id) {
        return leases.stream().filter(l -> l.conflictId().equals(id)).findFirst().orElseThrow();
    }

    @Test
    void aRetryAndTheMarkerWriteTheirHistoryEventAndCallsInOneTripAndALostLeaseOnlyItsCalls() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID retried = fixture.insertConflict("jira.retry");
            UUID marked = fixture.insertConflict("jira.mark");
            ScopedTransactions tx = fixture.transactionsOnOwnPool("t", 2);
            List<Lease> leases = tx.crossTenant(h -> ConflictLeases.claim(h, "r1", 10, Duration.ofSeconds(10), Ticker.SYSTEM));
            Lease retry = lease(leases, retried);
            Lease mark = lease(leases, marked);

            OneTripBatch trip = OneTripBatch.tenant();
            OneTripBatch.Result<java.util.Optional<ConflictLeases.Release>> release = ConflictLeases.releaseForRetry(
                    trip, retry.orgId(), retry, "synthesizer", Duration.ofSeconds(30),
                    new ConflictLeases.Ending(1, AttemptHistory.TRANSIENT_FAILURE, "synthesizer", "boom",
                            List.of(entry("primary", "failed"))));
            OneTripBatch.Result<Boolean> stamped = ConflictLeases.markPermanent(trip, mark.orgId(), mark,
                    "invalid_json", "{\"attempts\": 3}",
                    new ConflictLeases.Ending(3, AttemptHistory.PERMANENT_FAILURE, "invalid_json", "bad", List.of()));
            trip.run(tx);

            assertThat(release.get()).isPresent();
            assertThat(release.get().get().notBefore()).isAfter(release.get().get().releasedAt());
            assertThat(stamped.get()).isTrue();
            assertThat(fixture.column(retried, "synthesis_state")).isEqualTo("pending");
            assertThat(fixture.column(marked, "failure_marker")).isEqualTo("synthesis_max_attempts_exceeded");
            assertThat(fixture.events("synthesis_failed_permanently")).isEqualTo(1);
            boolean sameWait = fixture.admin.withHandle(h -> h.createQuery("""
                            SELECT h.not_before = c.not_before FROM synthesis_attempt_history h
                            JOIN policy_conflicts c ON c.id = h.conflict_id WHERE h.conflict_id = :id""")
                    .bind("id", retried).mapTo(Boolean.class).one());
            assertThat(sameWait).as("the history line waits as long as the row").isTrue();
            assertThat(outcomes(fixture, retried)).containsExactly("failed");

            // The lease is gone: the retry writes nothing but the call it paid for.
            OneTripBatch late = OneTripBatch.tenant();
            OneTripBatch.Result<java.util.Optional<ConflictLeases.Release>> again = ConflictLeases.releaseForRetry(
                    late, retry.orgId(), retry, "synthesizer", Duration.ZERO,
                    new ConflictLeases.Ending(1, AttemptHistory.TRANSIENT_FAILURE, "synthesizer", "late",
                            List.of(entry("primary", "failed"))));
            late.run(tx);
            assertThat(again.get()).isEmpty();
            assertThat(outcomes(fixture, retried)).hasSize(2);
            int lines = fixture.admin.withHandle(h -> h.createQuery(
                    "SELECT count(*) FROM synthesis_attempt_history WHERE conflict_id = :id")
                    .bind("id", retried).mapTo(Integer.class).one());
            assertThat(lines).isEqualTo(1);
        }
    }

    @Test
    void aCallWrittenByTwoAttemptsEndingsIsOneRowInTheMonthItWasAnswered() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID conflict = fixture.insertConflict("jira.twice");
            ScopedTransactions tx = fixture.transactionsOnOwnPool("t", 2);
            Lease first = tx.crossTenant(h -> ConflictLeases.claim(h, "r1", 1, Duration.ofSeconds(10), Ticker.SYSTEM))
                    .get(0);
            // Answered just before this month began: its row belongs to last month's partition, whenever it is
            // written again.
            java.time.Instant lastMonth = java.time.YearMonth.now(java.time.ZoneOffset.UTC).atDay(1)
                    .atStartOfDay(java.time.ZoneOffset.UTC).toInstant().minusMillis(1);
            UsageLedger.Entry call = new UsageLedger.Entry(UUID.randomUUID(), "primary", "anthropic", "m", 10, 2, 0, 0,
                    new BigDecimal("0.0001"), 5, "failed", "req-twice", lastMonth);

            OneTripBatch retry = OneTripBatch.tenant();
            OneTripBatch.Result<java.util.Optional<ConflictLeases.Release>> released = ConflictLeases.releaseForRetry(
                    retry, first.orgId(), first, "synthesizer", Duration.ZERO, new ConflictLeases.Ending(1,
                            AttemptHistory.TRANSIENT_FAILURE, "synthesizer", "boom", List.of(call)));
            retry.run(tx);
            assertThat(released.get()).isPresent();
            Lease second = tx.crossTenant(h -> ConflictLeases.claim(h, "r1", 1, Duration.ofSeconds(10), Ticker.SYSTEM))
                    .get(0);
            assertThat(second.attempts()).isEqualTo(2);
            // The second attempt's end carries the first one's call again, as after a commit whose answer was lost.
            OneTripBatch trip = OneTripBatch.tenant();
            ConflictLeases.storeMerge(trip, second.orgId(), second, "{\"schema_version\": 1}", "{\"attempt\": 2}", 2,
                    List.of(call, entry("primary", UsageLedger.ANSWER)));
            trip.run(tx);

            long rows = fixture.admin.withHandle(h -> h.createQuery(
                    "SELECT count(*) FROM llm_usage_events WHERE id = :id").bind("id", call.id())
                    .mapTo(Long.class).one());
            assertThat(rows).isEqualTo(1);
            assertThat(outcomes(fixture, conflict)).hasSize(2).contains("failed", "stored");
            java.time.Instant stamped = fixture.admin.withHandle(h -> h.createQuery(
                    "SELECT created_at FROM llm_usage_events WHERE id = :id").bind("id", call.id())
                    .mapTo(java.time.OffsetDateTime.class).one()).toInstant();
            assertThat(stamped).isEqualTo(lastMonth);
        }
    }

    /** Runs one end-of-lease statement in a trip of its own; whether its fence let it apply. */
    private static boolean write(ScopedTransactions tx,
                                 java.util.function.Function<OneTripBatch, OneTripBatch.Result<Boolean>> statement) {
        OneTripBatch trip = OneTripBatch.tenant();
        OneTripBatch.Result<Boolean> applied = statement.apply(trip);
        trip.run(tx);
        return applied.get();
    }

    private static UsageLedger.Entry entry(String pass, String outcome) {
        return new UsageLedger.Entry(UUID.randomUUID(), pass, "anthropic", "m", 10, 2, 0, 0,
                new BigDecimal("0.0001"), 5, outcome, "req-" + UUID.randomUUID(), java.time.Instant.now());
    }

    private static List<String> outcomes(WorkerFixture fixture, UUID conflict) {
        return fixture.admin.withHandle(h -> h.createQuery(
                "SELECT outcome FROM llm_usage_events WHERE conflict_id = :id ORDER BY pass DESC")
                .bind("id", conflict).mapTo(String.class).list());
    }
}
