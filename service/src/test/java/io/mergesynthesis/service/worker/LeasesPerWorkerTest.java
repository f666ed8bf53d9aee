package io.mergesynthesis.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.worker.WorkerFixture.Replica;
import io.mergesynthesis.testsupport.Wait;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A replica holds at most one lease per worker, also while its merges wait to be stored. A merge handed to the
 * completer is not safe until it is committed: were its worker free to claim again meanwhile, a replica killed
 * while its stores were slow would lose more synthesizer calls than it has workers.
 */
class LeasesPerWorkerTest {

    private static final int WORKERS = 2;
    private static final int CONFLICTS = 20;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aWorkerStaysBusyUntilItsMergeIsStored() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            fixture.insertConflicts(CONFLICTS, "jira.create_issue");
            CountingSynthesizer counting = new CountingSynthesizer(WorkerFixture.stub());
            Replica replica = fixture.replica(WorkerFixture.settings("slow-stores").workers(WORKERS), counting);

            long mostLeases = 0;
            // Every store inserts a "merge synthesized" event: holding this lock makes every store wait, while
            // claims and reads, which never touch the events, go on as usual.
            try (Handle blocker = fixture.admin.open()) {
                blocker.begin();
                try {
                    blocker.execute("LOCK TABLE conflict_events IN EXCLUSIVE MODE");
                    replica.pool().start();
                    Wait.until("a call per worker", Duration.ofSeconds(20),
                            () -> counting.total.get() >= WORKERS);
                    // The claim loop looks for free workers every 100 ms (the poll interval) and at once when one
                    // frees up: in ten rounds it has had ample chances to claim more, had it counted a worker free.
                    long rounds = replica.pool().claimRounds();
                    AtomicLong most = new AtomicLong();
                    Wait.until("ten more rounds of the claim loop", Duration.ofSeconds(20), () -> {
                        most.accumulateAndGet(fixture.count(
                                "lease_owner = 'slow-stores' AND synthesis_state = 'in_progress'"), Math::max);
                        return replica.pool().claimRounds() >= rounds + 10;
                    });
                    mostLeases = most.get();
                    assertThat(counting.total.get()).as("calls made while no merge could be stored")
                            .isEqualTo(WORKERS);
                } finally {
                    blocker.rollback();
                }
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
}
