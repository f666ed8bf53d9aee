package io.mergesynthesis.service.worker.attempt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mergesynthesis.service.db.OneTripBatch;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.testing.HandTicker;
import io.mergesynthesis.service.worker.FailureReason;
import io.mergesynthesis.service.worker.WorkerFixture;
import io.mergesynthesis.service.worker.attempt.AttemptResult.Why;
import io.mergesynthesis.service.worker.store.ConflictLeases;
import io.mergesynthesis.service.worker.store.Lease;
import io.mergesynthesis.service.worker.store.LeaseReader;
import io.mergesynthesis.synthesis.Ticker;
import io.mergesynthesis.testsupport.Wait;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The completer alone, without a pool, on the real database: every kind of attempt end it is handed is written
 * in one commit when they arrive together, each as its fenced statement, and one row that cannot be written
 * costs the others nothing.
 */
class AttemptCompleterTest {

    private static final String MERGE = "{\"merge\": \"stored\"}";

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void everyKindOfEndArrivingTogetherIsWrittenInOneCommit() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID stored = fixture.insertConflict("jira.stored", "org-a");
            UUID retried = fixture.insertConflict("jira.retried", "org-b");
            UUID marked = fixture.insertConflict("jira.marked", "org-a");
            UUID deferred = fixture.insertConflict("jira.deferred", "org-b");
            UUID parked = fixture.insertConflict("jira.parked", "org-a");
            ScopedTransactions tx = fixture.transactionsOnOwnPool("alone", 2);
            List<Lease> leases = claimAll(tx, "alone");
            assertThat(leases).hasSize(5);

            AttemptCompleter completer = new AttemptCompleter(tx, 1, 8, WorkerFixture.FIXED, Ticker.SYSTEM);
            // Handed in before the writer starts, so that its first batch takes all five.
            List<CompletableFuture<AttemptCompleter.Written>> written = List.of(
                    completer.complete(new AttemptResult.Stored(lease(leases, stored), orgOf(leases, stored), MERGE,
                            "{\"attempt\": 1}")),
                    completer.complete(new AttemptResult.Retry(lease(leases, retried), orgOf(leases, retried), 1,
                            FailureReason.SYNTHESIZER, "the provider failed", Duration.ofSeconds(5), List.of())),
                    completer.complete(new AttemptResult.GiveUp(lease(leases, marked), orgOf(leases, marked), 1,
                            FailureReason.INVALID_JSON, "still invalid", 1, List.of())),
                    completer.complete(new AttemptResult.HandBack(lease(leases, deferred), orgOf(leases, deferred),
                            1, Why.DEFERRED, "rate_limited", null, "asked to wait", Duration.ofSeconds(2),
                            List.of())),
                    completer.complete(new AttemptResult.Park(lease(leases, parked), orgOf(leases, parked), 1,
                            "waiting_budget", "budget", "spent")));
            completer.start("alone", NO_REFILL);
            for (CompletableFuture<AttemptCompleter.Written> future : written) {
                assertThat(future.get(20, TimeUnit.SECONDS).applied()).isTrue();
            }
            completer.stop();

            assertThat(written.get(1).get().release()).as("a retry reports when it may run again").isPresent();
            assertThat(fixture.column(stored, "synthesis_state")).isEqualTo("done");
            assertThat(fixture.column(retried, "synthesis_state")).isEqualTo("pending");
            assertThat(fixture.column(retried, "attempts")).isEqualTo("1");
            assertThat(fixture.column(marked, "failure_marker")).isEqualTo("synthesis_max_attempts_exceeded");
            assertThat(fixture.column(deferred, "attempts")).as("a hand-back takes its attempt back").isEqualTo("0");
            assertThat(fixture.column(parked, "synthesis_state")).isEqualTo("waiting_budget");
            assertThat(fixture.events("merge_synthesized")).isEqualTo(1);
            assertThat(fixture.events("synthesis_failed_permanently")).isEqualTo(1);
            assertThat(historyOutcomes(fixture)).containsExactlyInAnyOrder("transient_failure", "permanent_failure",
                    "deferred", "deferred");
            long commits = fixture.admin.withHandle(h -> h.createQuery("""
                            SELECT count(DISTINCT xmin::text) FROM policy_conflicts""").mapTo(Long.class).one());
            assertThat(commits).as("the five ends were written by one transaction").isEqualTo(1);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aRowThatCannotBeWrittenCostsTheOthersInItsBatchNothing() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID good = fixture.insertConflict("jira.good", "org-a");
            UUID bad = fixture.insertConflict("jira.bad", "org-b");
            UUID retried = fixture.insertConflict("jira.retried", "org-a");
            ScopedTransactions tx = fixture.transactionsOnOwnPool("bad-row", 2);
            List<Lease> leases = claimAll(tx, "bad-row");

            AttemptCompleter completer = new AttemptCompleter(tx, 1, 8, WorkerFixture.FIXED, Ticker.SYSTEM);
            CompletableFuture<AttemptCompleter.Written> goodStore = completer.complete(new AttemptResult.Stored(
                    lease(leases, good), orgOf(leases, good), MERGE, "{\"attempt\": 1}"));
            CompletableFuture<AttemptCompleter.Written> badStore = completer.complete(new AttemptResult.Stored(
                    lease(leases, bad), orgOf(leases, bad), "this is not JSON", "{\"attempt\": 1}"));
            CompletableFuture<AttemptCompleter.Written> retry = completer.complete(new AttemptResult.Retry(
                    lease(leases, retried), orgOf(leases, retried), 1, FailureReason.SYNTHESIZER, "failed",
                    Duration.ofSeconds(5), List.of()));
            completer.start("bad-row", NO_REFILL);

            assertThat(goodStore.get(20, TimeUnit.SECONDS).applied()).isTrue();
            assertThat(retry.get(20, TimeUnit.SECONDS).applied()).isTrue();
            assertThatThrownBy(() -> badStore.get(20, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
            completer.stop();

            assertThat(fixture.column(good, "synthesis_state")).isEqualTo("done");
            assertThat(fixture.column(retried, "synthesis_state")).isEqualTo("pending");
            assertThat(fixture.column(bad, "synthesis_state")).as("nothing of the bad row was written")
                    .isEqualTo("in_progress");
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aResultWhoseLeasePassedOnIsNotAppliedAndASkipWritesNothing() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID id = fixture.insertConflict("jira.lost");
            ScopedTransactions tx = fixture.transactionsOnOwnPool("lost", 2);
            Lease lease = tx.crossTenant(h -> ConflictLeases.claim(h, "lost", 1, Duration.ofSeconds(30), Ticker.SYSTEM)).get(0);
            Lease stale = new Lease(lease.conflictId(), lease.orgId(), "someone-else", lease.attempts(), false,
                    false, lease.heldUntil());

            AttemptCompleter completer = new AttemptCompleter(tx, 1, 8, WorkerFixture.FIXED, Ticker.SYSTEM);
            completer.start("lost", NO_REFILL);
            AttemptCompleter.Written late = completer.complete(new AttemptResult.Park(stale, stale.orgId(), 1,
                    "not_needed", "resolved", "resolved")).get(20, TimeUnit.SECONDS);
            AttemptCompleter.Written skipped = completer.complete(new AttemptResult.Skipped(lease, lease.orgId(), 1))
                    .get(20, TimeUnit.SECONDS);
            completer.stop();

            assertThat(late.applied()).isFalse();
            assertThat(skipped.applied()).isFalse();
            assertThat(fixture.column(id, "synthesis_state")).isEqualTo("in_progress");
            assertThat(historyOutcomes(fixture)).isEmpty();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aWriterGathersItsShareWithinTheWaitAndWritesALoneResultOnceTheWaitIsOver() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID first = fixture.insertConflict("jira.first", "org-a");
            UUID second = fixture.insertConflict("jira.second", "org-b");
            UUID lone = fixture.insertConflict("jira.lone", "org-a");
            ScopedTransactions tx = fixture.transactionsOnOwnPool("gather", 2);
            List<Lease> leases = claimAll(tx, "gather");

            // A wait far longer than the gap between the first two results, and a batch of two.
            AttemptCompleter completer = new AttemptCompleter(tx, 1, 8,
                    new AttemptCompleter.Gathering(2, Duration.ofSeconds(5)), WorkerFixture.FIXED, Ticker.SYSTEM);
            completer.start("gather", NO_REFILL);
            CompletableFuture<AttemptCompleter.Written> firstStore = completer.complete(new AttemptResult.Stored(
                    lease(leases, first), orgOf(leases, first), MERGE, "{\"attempt\": 1}"));
            Wait.until("the writer to hold the first result while it gathers", Duration.ofSeconds(10),
                    () -> completer.heldWhileGathering() == 1);
            assertThat(firstStore).as("the first result waits for a second").isNotDone();
            CompletableFuture<AttemptCompleter.Written> secondStore = completer.complete(new AttemptResult.Stored(
                    lease(leases, second), orgOf(leases, second), MERGE, "{\"attempt\": 1}"));
            assertThat(firstStore.get(20, TimeUnit.SECONDS).applied()).isTrue();
            assertThat(secondStore.get(20, TimeUnit.SECONDS).applied()).isTrue();
            assertThat(xmin(fixture, first)).as("gathered into one commit").isEqualTo(xmin(fixture, second));

            long handedIn = System.nanoTime();
            assertThat(completer.complete(new AttemptResult.Stored(lease(leases, lone), orgOf(leases, lone), MERGE,
                    "{\"attempt\": 1}")).get(20, TimeUnit.SECONDS).applied()).isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - handedIn))
                    .as("a lone result is written once the wait is over, not held for a second")
                    .isGreaterThanOrEqualTo(Duration.ofSeconds(5));
            completer.stop();
            assertThat(fixture.events("merge_synthesized")).isEqualTo(3);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theGatheringWindowClosesWhenTheTickerPassesIt() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID first = fixture.insertConflict("jira.first", "org-a");
            UUID second = fixture.insertConflict("jira.second", "org-b");
            ScopedTransactions tx = fixture.transactionsOnOwnPool("ticked", 2);
            List<Lease> leases = claimAll(tx, "ticked");
            HandTicker ticker = new HandTicker();

            // A batch of three and a window of an hour: within the test, only the ticker can close it.
            AttemptCompleter completer = new AttemptCompleter(tx, 1, 8,
                    new AttemptCompleter.Gathering(3, Duration.ofHours(1)), WorkerFixture.FIXED, ticker);
            completer.start("ticked", NO_REFILL);
            CompletableFuture<AttemptCompleter.Written> firstStore = completer.complete(new AttemptResult.Stored(
                    lease(leases, first), orgOf(leases, first), MERGE, "{\"attempt\": 1}"));
            Wait.until("the writer to hold the first result while it gathers", Duration.ofSeconds(10),
                    () -> completer.heldWhileGathering() == 1);
            assertThat(firstStore).as("the first result waits for more").isNotDone();

            ticker.advance(Duration.ofHours(1));
            CompletableFuture<AttemptCompleter.Written> secondStore = completer.complete(new AttemptResult.Stored(
                    lease(leases, second), orgOf(leases, second), MERGE, "{\"attempt\": 1}"));
            assertThat(firstStore.get(20, TimeUnit.SECONDS).applied()).isTrue();
            assertThat(secondStore.get(20, TimeUnit.SECONDS).applied()).isTrue();
            assertThat(xmin(fixture, first)).as("the result that came as the window closed went with the first")
                    .isEqualTo(xmin(fixture, second));
            completer.stop();
        }
    }

    @Test
    void thePoolGathersEachWritersShareOfTheWorkersForHalfAMillisecondAtMost() {
        AttemptCompleter.Gathering four = AttemptCompleter.Gathering.forPool(() -> 4, 2);
        assertThat(four.size()).isEqualTo(2);
        assertThat(four.atMost()).isEqualTo(Duration.ofNanos(500_000));
        assertThat(AttemptCompleter.Gathering.forPool(() -> 5, 2).size()).isEqualTo(3);
        assertThat(AttemptCompleter.Gathering.forPool(() -> 1, 2).size()).isEqualTo(1);
    }

    @Test
    void aPoolHoldingLeasesAheadGathersItsShareOfThemAsItHoldsThem() {
        AtomicInteger leases = new AtomicInteger(4);
        AttemptCompleter.Gathering gathering = AttemptCompleter.Gathering.forPool(leases::get, 2);
        assertThat(gathering.size()).isEqualTo(2);
        leases.set(16);
        assertThat(gathering.size()).isEqualTo(8);
        leases.set(4);
        assertThat(gathering.size()).isEqualTo(2);
    }

    /** Leases every waiting conflict (up to ten) to {@code owner} for 30 s. */
    private static List<Lease> claimAll(ScopedTransactions tx, String owner) {
        return tx.crossTenant(h -> ConflictLeases.claim(h, owner, 10, Duration.ofSeconds(30), Ticker.SYSTEM));
    }

    private static String xmin(WorkerFixture fixture, UUID id) {
        return fixture.admin.withHandle(h -> h.createQuery("SELECT xmin::text FROM policy_conflicts WHERE id = :id")
                .bind("id", id).mapTo(String.class).one());
    }

    private static final AttemptCompleter.Refill NO_REFILL = new AttemptCompleter.Refill() {
        @Override
        public int wanted(int freed) {
            return 0;
        }

        @Override
        public OneTripBatch.Result<List<Lease>> claim(OneTripBatch trip, int limit) {
            throw new AssertionError("a completer that wants no work claims none");
        }

        @Override
        public LeaseReader.ReadAhead readBack(java.sql.Connection connection, List<Lease> leases) {
            throw new AssertionError("nothing was claimed");
        }

        @Override
        public void claimed(List<Lease> leases, LeaseReader.ReadAhead readAhead) {
            throw new AssertionError("nothing was claimed");
        }
    };

    private static Lease lease(List<Lease> leases, UUID id) {
        return leases.stream().filter(l -> l.conflictId().equals(id)).findFirst().orElseThrow();
    }

    private static UUID orgOf(List<Lease> leases, UUID id) {
        return lease(leases, id).orgId();
    }

    private static List<String> historyOutcomes(WorkerFixture fixture) {
        return fixture.admin.withHandle(h -> h.createQuery("SELECT outcome FROM synthesis_attempt_history")
                .mapTo(String.class).list());
    }
}
