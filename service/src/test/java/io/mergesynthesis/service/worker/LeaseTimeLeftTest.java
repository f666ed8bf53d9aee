package io.mergesynthesis.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.testing.HandTicker;
import io.mergesynthesis.service.worker.WorkerFixture.Replica;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.Router;
import io.mergesynthesis.synthesis.StubRouter;
import io.mergesynthesis.testsupport.Wait;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * No synthesizer call starts on a lease with less than the invoke timeout left, as the worker's ticker tells
 * it: a lease whose time ran out while its conflict was being prepared is handed back uncounted and claimed
 * again, and only the new lease's call is made.
 */
class LeaseTimeLeftTest {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aLeaseTheTickerSaysIsNearlyOverIsHandedBackBeforeTheSynthesizerIsCalled() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID id = fixture.insertConflict("jira.create_issue");
            HandTicker ticker = new HandTicker();
            // Routing the first attempt takes nine of the lease's ten seconds, leaving less than the 2 s invoke
            // timeout; nothing else moves the ticker.
            AtomicBoolean slowOnce = new AtomicBoolean(true);
            Router slowRouter = new Router() {
                private final Router stub = new StubRouter();

                @Override
                public ResolvedModel resolve(String functionKey, UUID orgId) throws RouterException {
                    if (slowOnce.getAndSet(false)) {
                        ticker.advance(Duration.ofSeconds(9));
                    }
                    return stub.resolve(functionKey, orgId);
                }
            };
            CountingSynthesizer calls = new CountingSynthesizer(WorkerFixture.stub());
            Replica replica = fixture.replica(WorkerFixture.settings("ticked").leaseDuration(Duration.ofSeconds(10))
                    .invokeTimeout(Duration.ofSeconds(2)), calls, slowRouter, builder -> builder.ticker(ticker));
            replica.pool().start();
            Wait.until("the merge", Duration.ofSeconds(20),
                    () -> "done".equals(fixture.column(id, "synthesis_state")));
            replica.pool().stop();

            assertThat(calls.callsFor(id)).as("no call on the lease that was nearly over").isEqualTo(1);
            assertThat(replica.registry().getSampleValue("synthesis_deferrals_total")).isEqualTo(1);
            assertThat(fixture.column(id, "attempts")).as("the hand-back took its attempt back").isEqualTo("1");
            assertThat(history(fixture, id)).containsExactly("deferred lease_too_short");
        }
    }

    private static List<String> history(WorkerFixture fixture, UUID id) {
        return fixture.admin.withHandle(h -> h.createQuery(
                        "SELECT outcome || ' ' || reason FROM synthesis_attempt_history WHERE conflict_id = :id")
                .bind("id", id).mapTo(String.class).list());
    }
}
