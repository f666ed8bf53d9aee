package io.mergesynthesis.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.db.ConflictStore;
import io.mergesynthesis.service.worker.WorkerFixture.Replica;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.SuggestedMerge;
import io.mergesynthesis.synthesis.SynthesisException;
import io.mergesynthesis.testsupport.Wait;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * With a poll interval far longer than the test, only a NOTIFY can get a new conflict done in time; after its
 * listening connection is killed, the pool reconnects and is woken again; and a retry is picked up when its
 * backoff ends, with no poll and no notification; a store whose claim for its freed worker came back short, its
 * picture naming only orgs with nothing left, wakes the claim loop for the conflicts of the others.
 */
class WakeUpTest {

    private static final Duration NEVER_POLLS = Duration.ofMinutes(10);

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aNotificationWakesTheIdlePoolAndSurvivesALostConnection() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            Replica replica = fixture.replica(WorkerFixture.settings("listener").listen(true)
                    .pollInterval(NEVER_POLLS), WorkerFixture.stub());
            replica.pool().start();
            Wait.until("listening", Duration.ofSeconds(10),
                    () -> replica.pool().listenConnectionsMade() == 1);

            UUID first = insertAndNotify(fixture);
            Wait.until("the first conflict done", Duration.ofSeconds(15),
                    () -> "done".equals(fixture.column(first, "synthesis_state")));

            int killed = fixture.admin.withHandle(handle -> handle.createQuery("""
                            SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                            WHERE query = 'LISTEN %s' AND pid <> pg_backend_pid()"""
                            .formatted(ConflictStore.PENDING_CHANNEL))
                    .mapTo(Integer.class).one());
            assertThat(killed).isEqualTo(1);
            Wait.until("listening again", Duration.ofSeconds(15),
                    () -> replica.pool().listenConnectionsMade() == 2);

            UUID second = insertAndNotify(fixture);
            Wait.until("the second conflict done", Duration.ofSeconds(15),
                    () -> "done".equals(fixture.column(second, "synthesis_state")));
            assertThat(replica.pool().problem()).isEmpty();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anIdlePoolWakesWhenABackoffEndsWithoutPollingOrNotification() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            AtomicInteger calls = new AtomicInteger();
            MergeSynthesizer failsOnce = stubAfter("fails-once", () -> {
                if (calls.incrementAndGet() == 1) {
                    throw new SynthesisException("first call fails");
                }
            });
            Replica replica = fixture.replica(WorkerFixture.settings("sleeper").listen(true)
                    .pollInterval(NEVER_POLLS).baseBackoff(Duration.ofMillis(300)), failsOnce);
            replica.pool().start();
            Wait.until("listening", Duration.ofSeconds(10),
                    () -> replica.pool().listenConnectionsMade() == 1);

            // The release after the failure sends no NOTIFY; only the claim's knowledge of when the backoff
            // ends can bring the pool back before its ten-minute poll.
            UUID conflict = insertAndNotify(fixture);
            Wait.until("the retry done", Duration.ofSeconds(20),
                    () -> "done".equals(fixture.column(conflict, "synthesis_state")));
            assertThat(calls.get()).isEqualTo(2);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aStoreWhoseClaimCameBackShortWakesTheIdleClaimLoop() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            MergeSynthesizer holdsTheFirst = stubAfter("holds-the-first", () -> {
                if (entered.getCount() > 0) {
                    entered.countDown();
                    release.await();
                }
            });
            UUID first = fixture.insertConflict("jira.create_issue", "org-a");
            // No poll, no NOTIFY, and a lease that outlasts the test: nothing but a wake can start the claim loop.
            Replica replica = fixture.replica(WorkerFixture.settings("short-refill").workers(2)
                    .pollInterval(NEVER_POLLS).leaseDuration(Duration.ofMinutes(10)), holdsTheFirst);
            replica.pool().start();
            // The loop's first claim walks the waiting orgs (org A alone) and gets one conflict for two free
            // workers: it found nothing more, and idles.
            assertThat(entered.await(15, TimeUnit.SECONDS)).isTrue();

            // Reported without a NOTIFY while the first is in hand: the picture knows nothing of org B, so the
            // first one's store claims on org A alone, and comes back with nothing.
            UUID second = fixture.insertConflict("jira.create_issue", "org-b");
            release.countDown();
            Wait.until("the first conflict done", Duration.ofSeconds(15),
                    () -> "done".equals(fixture.column(first, "synthesis_state")));
            Wait.until("org B's conflict done", Duration.ofSeconds(15),
                    () -> "done".equals(fixture.column(second, "synthesis_state")));
        }
    }

    /** What a call does before the stub answers it: fail, or hold the call. */
    private interface Before {
        void run() throws SynthesisException, InterruptedException;
    }

    /** The stub, each call of which first runs {@code before}. */
    private static MergeSynthesizer stubAfter(String name, Before before) {
        return new MergeSynthesizer() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public SuggestedMerge synthesize(ConflictSnapshot conflict, ResolvedModel model)
                    throws SynthesisException, InterruptedException {
                before.run();
                return WorkerFixture.stub().synthesize(conflict, model);
            }
        };
    }

    private static UUID insertAndNotify(WorkerFixture fixture) {
        UUID id = fixture.insertConflict("jira.create_issue");
        fixture.admin.useHandle(ConflictStore::notifyPending);
        return id;
    }
}
