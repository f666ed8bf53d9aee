package io.mergesynthesis.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.Router;
import io.mergesynthesis.synthesis.SuggestedMerge;
import io.mergesynthesis.synthesis.Synthesis;
import io.mergesynthesis.synthesis.SynthesisDeferred;
import io.mergesynthesis.synthesis.SynthesisException;
import io.mergesynthesis.testsupport.Wait;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Claims follow the providers' pauses route by route: a provider that asks the replica to wait holds back the
 * conflicts of the orgs it serves, and the conflicts of every other provider's orgs are claimed and merged as
 * usual meanwhile; once a hold ends, the route's conflicts are claimed one at a time for a while.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClaimsPerRouteTest {

    private static final String DEFAULT_MODEL = "anthropic/claude";

    /** The org's own model, else the default; no escalation. */
    private static final Router ROUTER = new Router() {
        @Override
        public ResolvedModel resolve(String functionKey, UUID orgId) {
            return resolve(functionKey, orgId, null);
        }

        @Override
        public ResolvedModel resolve(String functionKey, UUID orgId, String setting) {
            String[] chosen = (setting == null ? DEFAULT_MODEL : setting).split("/", 2);
            return new ResolvedModel(functionKey, chosen[0], chosen[1]);
        }
    };

    /** Anthropic defers every call for 30 s; every other provider answers with the stub's merge. */
    private static final class OneProviderPaused implements MergeSynthesizer {

        final Map<String, AtomicInteger> asked = new ConcurrentHashMap<>();
        private final MergeSynthesizer stub = WorkerFixture.stub();
        private final SynthesisDeferred.Cause cause;

        OneProviderPaused(SynthesisDeferred.Cause cause) {
            this.cause = cause;
        }

        @Override
        public String name() {
            return "per-provider";
        }

        @Override
        public SuggestedMerge synthesize(ConflictSnapshot conflict, ResolvedModel model)
                throws SynthesisException, InterruptedException {
            return synthesizeWithCalls(conflict, model).merge();
        }

        @Override
        public Synthesis synthesizeWithCalls(ConflictSnapshot conflict, ResolvedModel model)
                throws SynthesisException, InterruptedException {
            asked.computeIfAbsent(model.provider(), p -> new AtomicInteger()).incrementAndGet();
            if (model.provider().equals("anthropic")) {
                throw new SynthesisDeferred(cause, "anthropic", Duration.ofSeconds(30), "anthropic: " + cause,
                        List.of());
            }
            return new Synthesis(stub.synthesize(conflict, model), List.of());
        }

        int asked(String provider) {
            AtomicInteger count = asked.get(provider);
            return count == null ? 0 : count.get();
        }
    }

    private static void setModel(WorkerFixture fixture, String orgSeed, String model) {
        fixture.admin.useHandle(handle -> handle.createUpdate(
                        "INSERT INTO org_synthesis_settings (org_id, model) VALUES (md5(:seed)::uuid, :model)")
                .bind("seed", orgSeed).bind("model", model).execute());
    }

    /**
     * A 429 pauses the provider's routes; so does a call its stated limits give no turn before long (paced), as
     * one claimed meanwhile would only be handed back.
     */
    @ParameterizedTest
    @EnumSource(value = SynthesisDeferred.Cause.class, names = {"RATE_LIMITED", "AT_CONCURRENCY_LIMIT"})
    void oneProvidersPauseHoldsBackItsOwnRoutesAndNoOtherOrgs(SynthesisDeferred.Cause cause) throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            setModel(fixture, "org-anthropic", "anthropic/claude-large");
            setModel(fixture, "org-openai", "openai/gpt");
            List<UUID> paused = new ArrayList<>();
            List<UUID> served = new ArrayList<>();
            // The paused provider's conflicts come first, so that a pool-wide pause would hold every one after them.
            for (int i = 0; i < 3; i++) {
                paused.add(fixture.insertConflict("jira.a" + i, "org-anthropic"));
                paused.add(fixture.insertConflict("jira.d" + i, "org-default"));
            }
            for (int i = 0; i < 4; i++) {
                served.add(fixture.insertConflict("jira.o" + i, "org-openai"));
            }
            OneProviderPaused synthesizer = new OneProviderPaused(cause);
            WorkerFixture.Replica replica = fixture.replica(WorkerFixture.settings("r1").workers(1), synthesizer,
                    ROUTER);
            replica.pool().start();

            Wait.until("the other provider's conflicts merged", Duration.ofSeconds(20),
                    () -> fixture.count("synthesis_state = 'done'") == served.size());

            assertThat(synthesizer.asked("openai")).isEqualTo(served.size());
            // One conflict of each route learns the pause (the default route's provider is learnt from its own
            // deferral); the rest of both routes are not claimed while it lasts.
            assertThat(synthesizer.asked("anthropic")).isEqualTo(2);
            for (UUID id : paused) {
                assertThat(fixture.column(id, "synthesis_state")).isEqualTo("pending");
                assertThat(fixture.column(id, "attempts")).isEqualTo("0");
            }
            long rounds = replica.pool().claimRounds();
            Wait.until("five more rounds of the claim loop", Duration.ofSeconds(20),
                    () -> replica.pool().claimRounds() >= rounds + 5);
            assertThat(synthesizer.asked("anthropic")).as("still held back").isEqualTo(2);
        }
    }

    /** Every call has no turn before long: handed back with a short hold, and the leases held seen at each call. */
    private static final class NoTurnSoon implements MergeSynthesizer {

        private final WorkerFixture fixture;
        private final AtomicInteger calls = new AtomicInteger();
        private final AtomicInteger mostHeldAfterTheFirstRounds = new AtomicInteger();

        NoTurnSoon(WorkerFixture fixture) {
            this.fixture = fixture;
        }

        @Override
        public String name() {
            return "no-turn-soon";
        }

        @Override
        public SuggestedMerge synthesize(ConflictSnapshot conflict, ResolvedModel model) throws SynthesisException {
            if (calls.incrementAndGet() > 2 * WORKERS) {
                long held = fixture.count("synthesis_state = 'in_progress'");
                mostHeldAfterTheFirstRounds.accumulateAndGet((int) held, Math::max);
            }
            throw new SynthesisDeferred(SynthesisDeferred.Cause.AT_CONCURRENCY_LIMIT, "anthropic",
                    Duration.ofMillis(100), "anthropic: no turn within the slot wait", List.of());
        }
    }

    private static final int WORKERS = 8;

    /**
     * A provider that paces its calls lets one start only now and then; every conflict claimed beyond the next turn
     * is handed straight back. Once a hold ends, the pool claims the route's conflicts one at a time, not a batch for
     * every free worker (which it did before: eight held at each end of a hold).
     */
    @Test
    void aRouteWhoseHoldEndedIsClaimedOneConflictAtATime() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            setModel(fixture, "org-anthropic", "anthropic/claude-large");
            for (int i = 0; i < 40; i++) {
                fixture.insertConflict("jira.p" + i, "org-anthropic");
            }
            NoTurnSoon synthesizer = new NoTurnSoon(fixture);
            WorkerFixture.Replica replica = fixture.replica(WorkerFixture.settings("paced").workers(WORKERS),
                    synthesizer, ROUTER);
            replica.pool().start();

            Wait.until("five more holds after the first rounds", Duration.ofSeconds(30),
                    () -> synthesizer.calls.get() >= 2 * WORKERS + 5);
            assertThat(synthesizer.mostHeldAfterTheFirstRounds.get())
                    .as("conflicts held at once while the route is paced").isLessThanOrEqualTo(2);
        }
    }
}
