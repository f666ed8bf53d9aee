package io.mergesynthesis.service.worker;

import static io.mergesynthesis.service.worker.PayingSynthesizer.call;
import static io.mergesynthesis.service.worker.PayingSynthesizer.paid;
import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.worker.WorkerFixture.Replica;
import io.mergesynthesis.service.worker.pool.PoolSettings;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.ProviderCall.Disposition;
import io.mergesynthesis.synthesis.ProviderCall.Pass;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.SuggestedMerge;
import io.mergesynthesis.synthesis.Synthesis;
import io.mergesynthesis.synthesis.SynthesisException;
import io.mergesynthesis.testsupport.Wait;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A replica holds at most one lease per worker while its merges are paid for, also while they wait to be stored. A
 * merge handed to the completer is not safe until it is committed: were its worker free to claim again meanwhile,
 * a replica killed while its stores were slow would lose more paid calls than it has workers. Merges that cost
 * nothing and take less than their store are held ahead of the workers (ADR 0077), within a bound.
 */
class LeasesPerWorkerTest {

    private static final int WORKERS = 2;
    private static final int CONFLICTS = 20;
    /** Enough that the drain is still going when the test has seen what it waits for. */
    private static final int BACKLOG = 3_000;
    /** Calls answered at once before a synthesizer slows down. */
    private static final int FAST_CALLS = 100;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aWorkerStaysBusyUntilItsMergeIsStored() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            fixture.insertConflicts(CONFLICTS, "jira.create_issue");
            CountingSynthesizer counting = new CountingSynthesizer(WorkerFixture.stub());
            Replica replica = fixture.replica(WorkerFixture.settings("slow-stores").workers(WORKERS), counting);

            long mostLeases;
            try (StoresHeldBack held = new StoresHeldBack(fixture)) {
                replica.pool().start();
                Wait.until("a call per worker", Duration.ofSeconds(20), () -> counting.total.get() >= WORKERS);
                mostLeases = mostLeasesOverTenRounds(fixture, replica, "slow-stores");
                assertThat(counting.total.get()).as("calls made while no merge could be stored")
                        .isEqualTo(WORKERS);
            }
            assertThat(mostLeases).as("leases held at once by a replica of %d workers", WORKERS)
                    .isEqualTo(WORKERS);

            Wait.until("every conflict done", Duration.ofSeconds(30),
                    () -> fixture.count("synthesis_state = 'done'") == CONFLICTS);
            assertThat(counting.total.get()).isEqualTo(CONFLICTS);
            // Counted when each store is reported back, a moment after the commit that shows the row done.
            Wait.until("every success counted", Duration.ofSeconds(10),
                    () -> replica.attempts(Outcome.SUCCESS) == CONFLICTS);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void freeMergesFasterThanTheirStoresAreHeldAheadOfTheWorkersWithinABound() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            fixture.insertConflicts(BACKLOG, "jira.create_issue");
            CountingSynthesizer counting = new CountingSynthesizer(WorkerFixture.stub());
            Replica replica = fixture.replica(WorkerFixture.settings("free-merges").workers(WORKERS), counting);
            replica.pool().start();
            Wait.until("the pool holds leases ahead of its workers", Duration.ofSeconds(30),
                    () -> replica.pool().leasesAhead() > 0);

            long mostLeases;
            try (StoresHeldBack held = new StoresHeldBack(fixture)) {
                mostLeases = mostLeasesOverTenRounds(fixture, replica, "free-merges");
                assertThat(replica.pool().leasesHeldAhead()).as("what the gauge shows").isPositive();
            }

            assertThat(mostLeases).as("leases held at once by a replica of %d workers", WORKERS)
                    .isGreaterThan(WORKERS)
                    .isLessThanOrEqualTo(WORKERS * (1 + PoolSettings.DEFAULT_LEASES_AHEAD_PER_WORKER));
            Wait.until("every conflict done", Duration.ofSeconds(40),
                    () -> fixture.count("synthesis_state = 'done'") == BACKLOG);
            assertThat(counting.total.get()).as("one call per conflict, none thrown away").isEqualTo(BACKLOG);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void paidMergesAreNeverHeldAheadHoweverFastTheyAre() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            fixture.insertConflicts(BACKLOG, "jira.create_issue");
            PayingSynthesizer paying = new PayingSynthesizer(merge -> paid(merge,
                    call(Pass.PRIMARY, "small", 100, 20, "0.000400", Disposition.ANSWER)));
            Replica replica = fixture.replica(WorkerFixture.settings("paid-merges").workers(WORKERS), paying);
            replica.pool().start();
            // Paid merges answered at once, stored in a commit's time: as fast as the free ones above.
            Wait.until("a hundred merges stored", Duration.ofSeconds(30),
                    () -> replica.attempts(Outcome.SUCCESS) >= 100);
            assertThat(replica.pool().leasesAhead()).isZero();

            long mostLeases = mostLeasesWhileStoresWait(fixture, replica, "paid-merges");

            assertThat(mostLeases).as("leases held at once by a replica of %d workers", WORKERS)
                    .isEqualTo(WORKERS);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void paidFailuresEndTheLeadAsPaidMergesDo() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            fixture.insertConflicts(BACKLOG, "jira.create_issue");
            AtomicInteger asked = new AtomicInteger();
            // Free merges at first, then every call paid for and its answer refused.
            PayingSynthesizer paying = new PayingSynthesizer(merge -> {
                if (asked.incrementAndGet() <= FAST_CALLS) {
                    return Synthesis.free(merge);
                }
                throw new SynthesisException("the answer was not a merge", null,
                        List.of(call(Pass.PRIMARY, "small", 100, 20, "0.000400", Disposition.ANSWER)));
            });
            Replica replica = fixture.replica(WorkerFixture.settings("paid-failures").workers(WORKERS), paying);
            replica.pool().start();
            Wait.until("paid failures after the free merges", Duration.ofSeconds(30),
                    () -> asked.get() > FAST_CALLS + 10 * WORKERS);

            // Failures write no event, so they go on while the merges' stores are held back.
            long mostLeases = mostLeasesWhileStoresWait(fixture, replica, "paid-failures");
            assertThat(replica.pool().leasesAhead()).isZero();
            assertThat(mostLeases).as("leases held at once by a replica of %d workers making paid calls", WORKERS)
                    .isLessThanOrEqualTo(WORKERS);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void leasesHeldAheadAreGivenBackUnstartedOnceMergesSlowDown() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            fixture.insertConflicts(BACKLOG, "jira.create_issue");
            // The first hundred calls answer at once, every later one only when the test lets it.
            Semaphore answers = new Semaphore(0);
            AtomicInteger started = new AtomicInteger();
            MergeSynthesizer stub = WorkerFixture.stub();
            MergeSynthesizer gated = new MergeSynthesizer() {
                @Override
                public String name() {
                    return "gated";
                }

                @Override
                public SuggestedMerge synthesize(ConflictSnapshot conflict, ResolvedModel model)
                        throws SynthesisException, InterruptedException {
                    if (started.incrementAndGet() > FAST_CALLS) {
                        answers.acquire();
                    }
                    return stub.synthesize(conflict, model);
                }
            };
            Replica replica = fixture.replica(WorkerFixture.settings("slowing").workers(WORKERS), gated);
            replica.pool().start();
            Wait.until("a call per worker waiting, with leases held ahead of them", Duration.ofSeconds(30),
                    () -> started.get() == FAST_CALLS + WORKERS && heldBy(fixture, "slowing") > WORKERS);

            // The waiting calls go on for three rounds of the claim loop, a poll interval each: merges far slower
            // than their store. Once they are stored, nothing is wanted ahead, and the leases queued ahead are
            // given back as workers reach them, uncalled; the workers go on to calls that wait again.
            long rounds = replica.pool().claimRounds();
            Wait.until("three more rounds of the claim loop", Duration.ofSeconds(20),
                    () -> replica.pool().claimRounds() >= rounds + 3);
            answers.release(WORKERS);
            Wait.until("leases held no more than workers", Duration.ofSeconds(20),
                    () -> started.get() == FAST_CALLS + 2 * WORKERS && heldBy(fixture, "slowing") == WORKERS);
            assertThat(replica.pool().leasesAhead()).isZero();
            assertThat(started.get()).as("calls made: the leases given back were not called")
                    .isEqualTo(FAST_CALLS + 2 * WORKERS);

            answers.release(BACKLOG);
            Wait.until("every conflict done", Duration.ofSeconds(40),
                    () -> fixture.count("synthesis_state = 'done'") == BACKLOG);
            assertThat(started.get()).as("one call per conflict, none thrown away").isEqualTo(BACKLOG);
        }
    }

    private static long heldBy(WorkerFixture fixture, String owner) {
        return fixture.count("lease_owner = '" + owner + "' AND synthesis_state = 'in_progress'");
    }

    /**
     * Every store inserts a "merge synthesized" event: holding this lock makes every store wait, while claims and
     * reads, which never touch the events, go on as usual.
     */
    private static final class StoresHeldBack implements AutoCloseable {
        private final Handle blocker;

        StoresHeldBack(WorkerFixture fixture) {
            blocker = fixture.admin.open();
            blocker.begin();
            blocker.execute("LOCK TABLE conflict_events IN EXCLUSIVE MODE");
        }

        @Override
        public void close() {
            blocker.rollback();
            blocker.close();
        }
    }

    /** {@link #mostLeasesOverTenRounds} with every store held back meanwhile. */
    private static long mostLeasesWhileStoresWait(WorkerFixture fixture, Replica replica, String owner) {
        try (StoresHeldBack held = new StoresHeldBack(fixture)) {
            return mostLeasesOverTenRounds(fixture, replica, owner);
        }
    }

    /**
     * The most leases {@code owner} held while its claim loop went round ten more times. The loop looks for room
     * every 100 ms (the poll interval) and at once when a place frees up: in ten rounds it has had ample chances
     * to claim more, had it counted a place free.
     */
    private static long mostLeasesOverTenRounds(WorkerFixture fixture, Replica replica, String owner) {
        long rounds = replica.pool().claimRounds();
        AtomicLong most = new AtomicLong();
        Wait.until("ten more rounds of the claim loop", Duration.ofSeconds(20), () -> {
            most.accumulateAndGet(fixture.count("lease_owner = '" + owner + "' AND synthesis_state = 'in_progress'"),
                    Math::max);
            return replica.pool().claimRounds() >= rounds + 10;
        });
        return most.get();
    }
}
