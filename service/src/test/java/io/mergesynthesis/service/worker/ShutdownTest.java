package io.mergesynthesis.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.worker.WorkerFixture.Replica;
import io.mergesynthesis.service.worker.store.ConflictLeases;
import io.mergesynthesis.service.worker.store.Lease;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.Router;
import io.mergesynthesis.synthesis.StubRouter;
import io.mergesynthesis.synthesis.SuggestedMerge;
import io.mergesynthesis.synthesis.SynthesisException;
import io.mergesynthesis.synthesis.Ticker;
import io.mergesynthesis.testsupport.Wait;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Stopping a pool: work already inside the synthesizer finishes and is stored; a conflict that was leased but
 * had not reached the synthesizer is handed back, claimable at once by another replica, its attempt not counted.
 */
class ShutdownTest {

    /** Holds every call in the synthesizer until released. */
    static final class HeldSynthesizer implements MergeSynthesizer {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        private final MergeSynthesizer stub = WorkerFixture.stub();

        @Override
        public String name() {
            return "held";
        }

        @Override
        public SuggestedMerge synthesize(ConflictSnapshot conflict, ResolvedModel model)
                throws SynthesisException, InterruptedException {
            entered.countDown();
            release.await();
            return stub.synthesize(conflict, model);
        }
    }

    /** Holds routing for one org until released, so that org's conflict is leased but not yet started. */
    static final class HeldRouter implements Router {
        final UUID heldOrg;
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        HeldRouter(UUID heldOrg) {
            this.heldOrg = heldOrg;
        }

        @Override
        public ResolvedModel resolve(String functionKey, UUID orgId) throws RouterException {
            if (orgId.equals(heldOrg)) {
                entered.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return new StubRouter().resolve(functionKey, orgId);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void inFlightWorkFinishesAndUnstartedLeasesAreHandedBack() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID inFlight = fixture.insertConflict("jira.create_issue", "org-synthesizing");
            UUID unstarted = fixture.insertConflict("jira.create_issue", "org-routing");
            HeldSynthesizer synthesizer = new HeldSynthesizer();
            HeldRouter router = new HeldRouter(UUID.fromString(fixture.column(unstarted, "org_id")));
            Replica replica = fixture.replica(WorkerFixture.settings("stopping").workers(2), synthesizer, router);
            replica.pool().start();
            assertThat(synthesizer.entered.await(20, TimeUnit.SECONDS)).isTrue();
            assertThat(router.entered.await(20, TimeUnit.SECONDS)).isTrue();

            CompletableFuture<Void> stopped = CompletableFuture.runAsync(() -> {
                try {
                    replica.pool().stop();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Wait.until("the pool stopping", Duration.ofSeconds(10),
                    () -> replica.pool().problem().equals(Optional.of("the pool is stopping")));

            router.release.countDown();
            Wait.until("the unstarted lease handed back", Duration.ofSeconds(10),
                    () -> "pending".equals(fixture.column(unstarted, "synthesis_state")));
            assertThat(stopped).as("stop waits for the conflict still in the synthesizer").isNotDone();

            synthesizer.release.countDown();
            stopped.get(30, TimeUnit.SECONDS);

            assertThat(fixture.column(inFlight, "synthesis_state")).isEqualTo("done");
            assertThat(fixture.column(unstarted, "attempts")).isEqualTo("0");
            assertThat(fixture.column(unstarted, "lease_owner")).isNull();
            assertThat(fixture.column(unstarted, "last_failure_reason")).isNull();
            assertThat(replica.attempts(Outcome.SUCCESS)).isEqualTo(1);
            assertThat(replica.attempts(Outcome.SKIPPED) + replica.attempts(Outcome.TRANSIENT_FAILURE)).isZero();

            // Another replica can claim it right away: no backoff, no lease to wait out.
            List<Lease> claimed = fixture.database.transactions().crossTenant(
                    handle -> ConflictLeases.claim(handle, "next-replica", 10, Duration.ofSeconds(10), Ticker.SYSTEM));
            assertThat(claimed).extracting(Lease::conflictId).containsExactly(unstarted);
            assertThat(claimed.get(0).attempts()).isEqualTo(1);
        }
    }
}
