package io.mergesynthesis.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.worker.WorkerFixture.Replica;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.Router;
import io.mergesynthesis.synthesis.StubRouter;
import io.mergesynthesis.testsupport.Wait;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A replica that freezes while holding leases (think of a process stopped dead, or a pause far longer than the
 * lease) never releases them. Another replica takes the conflicts over once the leases expire and writes each
 * merge once; when the frozen replica wakes up, its late writes are fenced off.
 */
class CrashRecoveryTest {

    /** Stands still inside an attempt, where no invoke timeout applies, until the test lets it go. */
    static final class FrozenRouter implements Router {
        final CountDownLatch entered;
        final CountDownLatch thaw = new CountDownLatch(1);

        FrozenRouter(int conflicts) {
            entered = new CountDownLatch(conflicts);
        }

        @Override
        public ResolvedModel resolve(String functionKey, UUID orgId) throws RouterException {
            entered.countDown();
            try {
                thaw.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new StubRouter().resolve(functionKey, orgId);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void expiredLeasesAreTakenOverAndTheLateWriterIsFenced() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            List<UUID> ids = List.of(fixture.insertConflict("jira.a"), fixture.insertConflict("jira.b"),
                    fixture.insertConflict("jira.c"));
            CountingSynthesizer calls = new CountingSynthesizer(WorkerFixture.stub());
            FrozenRouter frozen = new FrozenRouter(ids.size());
            Replica dead = fixture.replica(WorkerFixture.settings("frozen").workers(3)
                    .leaseDuration(Duration.ofSeconds(2)).invokeTimeout(Duration.ofMillis(500)),
                    calls, frozen);
            dead.pool().start();
            assertThat(frozen.entered.await(20, TimeUnit.SECONDS)).as("the frozen replica leased all three").isTrue();
            assertThat(fixture.count("lease_owner = 'frozen' AND synthesis_state = 'in_progress'")).isEqualTo(3);

            Replica rescuer = fixture.replica(WorkerFixture.settings("rescuer")
                    .leaseDuration(Duration.ofSeconds(2)).invokeTimeout(Duration.ofMillis(500)), calls);
            rescuer.pool().start();
            Wait.until("the rescuer finishing all three", Duration.ofSeconds(30),
                    () -> fixture.count("synthesis_state = 'done'") == ids.size());
            // The rows show as done at the commit; each outcome is counted a moment later, when the store is
            // reported back to its worker.
            Wait.until("the rescuer's three successes counted", Duration.ofSeconds(10),
                    () -> rescuer.attempts(Outcome.SUCCESS) == 3);
            assertThat(rescuer.registry().getSampleValue("synthesis_lease_recoveries_total")).isEqualTo(3.0);
            // The abandoned claim counted as an attempt: the rescuer's claim was the second.
            assertThat(fixture.count("attempts = 2")).isEqualTo(3);

            frozen.thaw.countDown();
            Wait.until("the frozen replica's late attempts to end", Duration.ofSeconds(20),
                    () -> dead.attempts(Outcome.SKIPPED) == 3);
            assertThat(dead.attempts(Outcome.SUCCESS)).isZero();
            assertThat(fixture.events("merge_synthesized")).isEqualTo(3);
            for (UUID id : ids) {
                assertThat(fixture.column(id, "synthesis_state")).isEqualTo("done");
                assertThat(fixture.column(id, "lease_owner")).isNull();
                assertThat(fixture.column(id, "suggested_merge")).contains(id.toString());
            }
        }
    }
}
