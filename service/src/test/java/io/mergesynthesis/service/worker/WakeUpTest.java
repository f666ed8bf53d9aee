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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * With a poll interval far longer than the test, only a NOTIFY can get a new conflict done in time; after its
 * listening connection is killed, the pool reconnects and is woken again; and a retry is picked up when its
 * backoff ends, with no poll and no notification.
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
            MergeSynthesizer failsOnce = new MergeSynthesizer() {
                @Override
                public String name() {
                    return "fails-once";
                }

                @Override
                public SuggestedMerge synthesize(ConflictSnapshot conflict, ResolvedModel model)
                        throws SynthesisException, InterruptedException {
                    if (calls.incrementAndGet() == 1) {
                        throw new SynthesisException("first call fails");
                    }
                    return WorkerFixture.stub().synthesize(conflict, model);
                }
            };
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

    private static UUID insertAndNotify(WorkerFixture fixture) {
        UUID id = fixture.insertConflict("jira.create_issue");
        fixture.admin.useHandle(ConflictStore::notifyPending);
        return id;
    }
}
