package io.mergesynthesis.llm;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.ProviderCall;
import io.mergesynthesis.synthesis.SynthesisDeferred;
import io.mergesynthesis.testsupport.Wait;
import io.prometheus.client.CollectorRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A call's wait for a slot and its wait for a turn share one deadline, reckoned on the ticker the client is
 * given: time spent waiting for the slot is time the turn no longer gets.
 */
class SlotWaitTest {

    private static final Duration SLOT_WAIT = Duration.ofHours(1);

    private final TestClock clock = new TestClock();
    private final TestTicker ticker = new TestTicker();
    private final ProviderGate gate = new ProviderGate("anthropic", "ANTHROPIC_API_KEY", 1, new CircuitSettings(),
            clock, ticker);
    // Never reached: every call here is handed back before it is sent.
    private final ProviderClient client = new ProviderClient("anthropic",
            Fixtures.provider(ProviderType.ANTHROPIC, "http://127.0.0.1:9", AnswerMode.TOOL), gate, Prompt.shipped(),
            new LlmMetrics(new CollectorRegistry(), Map.of("anthropic", gate)), clock, ticker, SLOT_WAIT);

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aCallThatSpentItsWaitOnTheSlotIsHandedBackAtOnceInsteadOfWaitingForItsTurn() throws Exception {
        // The provider said nothing is left until a reset 10 s away; the clock stays there, so the turn never comes.
        ModelLimits limits = gate.model("test-model");
        ModelLimits.Turn answered = limits.awaitStart(Duration.ZERO, limits.charges(1024, 400)).orElseThrow();
        limits.answered(answered, clock.instant(), Map.of(RateLimitHeaders.Kind.REQUESTS, new RateLimitHeaders.Stated(
                OptionalLong.of(20), 0, clock.instant().plusSeconds(10))), Usage.NONE, true);
        assertThat(gate.limit().acquire(Duration.ZERO)).as("the only slot, held by the test").isTrue();

        CompletableFuture<Throwable> ended = new CompletableFuture<>();
        Thread caller = new Thread(() -> {
            ConflictSnapshot conflict = Fixtures.conflict();
            try {
                client.ask(ProviderCall.Pass.PRIMARY, "test-model", Fixtures.price("3", "15"), conflict,
                        conflict.winner().orElseThrow(), new ArrayList<>(), null);
                ended.complete(null);
            } catch (Throwable e) {
                ended.complete(e);
            }
        }, "slot-waiter");
        caller.start();
        Wait.until("the call to wait for its slot", Duration.ofSeconds(10),
                () -> caller.getState() == Thread.State.TIMED_WAITING);

        // All but a millisecond of the wait goes by while the call waits for its slot, then the slot frees.
        ticker.advance(SLOT_WAIT.minusMillis(1));
        gate.limit().release();

        Throwable deferral = ended.get(10, TimeUnit.SECONDS);
        assertThat(deferral).isInstanceOf(SynthesisDeferred.class).hasMessageContaining("is paced to");
        assertThat(((SynthesisDeferred) deferral).deferral())
                .isEqualTo(SynthesisDeferred.Cause.AT_CONCURRENCY_LIMIT);
        assertThat(gate.limit().inFlight()).as("the slot was given back").isZero();
    }

    @Test
    void aCallHandedBackForItsTurnIsClaimedAgainHalfASlotWaitBeforeIt() throws Exception {
        Duration slotWait = Duration.ofSeconds(2);
        ProviderClient waitsTwoSeconds = new ProviderClient("anthropic",
                Fixtures.provider(ProviderType.ANTHROPIC, "http://127.0.0.1:9", AnswerMode.TOOL), gate,
                Prompt.shipped(), new LlmMetrics(new CollectorRegistry(), Map.of("anthropic", gate)), clock, ticker,
                slotWait);
        // 20 requests a minute, none left: the next turn is seconds away, longer than the slot wait.
        ModelLimits limits = gate.model("test-model");
        ModelLimits.Turn answered = limits.awaitStart(Duration.ZERO, limits.charges(1024, 400)).orElseThrow();
        limits.answered(answered, clock.instant(), Map.of(RateLimitHeaders.Kind.REQUESTS, new RateLimitHeaders.Stated(
                OptionalLong.of(20), 0, clock.instant().plusSeconds(60))), Usage.NONE, true);
        Duration nextTurn = limits.untilNextStart();
        assertThat(nextTurn).as("a turn further off than the slot wait").isGreaterThan(slotWait);

        ConflictSnapshot conflict = Fixtures.conflict();
        SynthesisDeferred deferral = org.assertj.core.api.Assertions.catchThrowableOfType(
                () -> waitsTwoSeconds.ask(ProviderCall.Pass.PRIMARY, "test-model", Fixtures.price("3", "15"),
                        conflict, conflict.winner().orElseThrow(), new ArrayList<>(), null),
                SynthesisDeferred.class);

        assertThat(deferral.deferral()).isEqualTo(SynthesisDeferred.Cause.AT_CONCURRENCY_LIMIT);
        assertThat(deferral.retryAfter()).as("claimed again while a worker can still wait for the turn")
                .isEqualTo(nextTurn.minus(Duration.ofSeconds(1)));
    }
}
