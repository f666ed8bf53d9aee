package io.mergesynthesis.llm;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.synthesis.SynthesisDeferred.Cause;
import io.mergesynthesis.synthesis.Ticker;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ProviderGateTest {

    private final TestClock clock = new TestClock();
    private final ProviderGate gate = new ProviderGate("anthropic", "ANTHROPIC_API_KEY", 16, new CircuitSettings(), clock,
            Ticker.SYSTEM);

    private static final String SONNET = "claude-sonnet-4-5";
    private static final String HAIKU = "claude-haiku-4-5";

    @Test
    void theLimitHalvesOncePerThrottlingEpisode() {
        gate.throttled(Cause.RATE_LIMITED, SONNET, Duration.ofSeconds(2));
        gate.throttled(Cause.RATE_LIMITED, SONNET, Duration.ofSeconds(1));

        assertThat(gate.limit().limit()).as("the in-flight calls' 429s are the same event").isEqualTo(8);
        assertThat(gate.model(SONNET).paused()).as("a shorter ask never shortens a pause")
                .contains(Duration.ofSeconds(2));

        clock.advance(Duration.ofSeconds(2));
        assertThat(gate.model(SONNET).paused()).isEmpty();

        gate.throttled(Cause.OVERLOADED, SONNET, Duration.ofSeconds(1));
        assertThat(gate.limit().limit()).isEqualTo(4);
        assertThat(gate.activePause().orElseThrow().cause()).isEqualTo(Cause.OVERLOADED);
    }

    @Test
    void aLongerAskExtendsThePause() {
        gate.throttled(Cause.RATE_LIMITED, SONNET, Duration.ofSeconds(2));
        Duration wait = gate.throttled(Cause.RATE_LIMITED, SONNET, Duration.ofSeconds(5));

        assertThat(wait).isEqualTo(Duration.ofSeconds(5));
        assertThat(gate.model(SONNET).paused()).contains(Duration.ofSeconds(5));
    }

    @Test
    void a429PausesTheModelItCameFromAndNotTheProvider() {
        Duration wait = gate.throttled(Cause.RATE_LIMITED, SONNET, Duration.ofSeconds(3));

        assertThat(wait).isEqualTo(Duration.ofSeconds(3));
        assertThat(gate.model(SONNET).paused()).contains(Duration.ofSeconds(3));
        assertThat(gate.model(HAIKU).paused()).as("the other model's limits are its own").isEmpty();
        assertThat(gate.activePause()).as("the provider is not paused").isEmpty();

        clock.advance(Duration.ofMillis(2500));
        assertThat(gate.model(SONNET).paused()).contains(Duration.ofMillis(500));
    }

    @Test
    void aRefusedKeyIsAProblemUntilASuccessAndDoesNotTouchTheLimit() {
        Duration wait = gate.refusedKey(403);

        assertThat(wait).isEqualTo(ProviderGate.REFUSED_KEY_PAUSE);
        assertThat(gate.problem()).contains("provider 'anthropic' refused its key (HTTP 403): check ANTHROPIC_API_KEY");
        assertThat(gate.activePause().orElseThrow().cause()).isEqualTo(Cause.REFUSED_KEY);
        assertThat(gate.limit().limit()).isEqualTo(16);

        gate.succeeded();
        assertThat(gate.problem()).isEmpty();
    }

    @Test
    void aSpendLimitPausesLongest() {
        gate.throttled(Cause.OVERLOADED, SONNET, Duration.ofSeconds(3));
        Duration wait = gate.spendLimitReached();

        assertThat(wait).isEqualTo(ProviderGate.SPEND_LIMIT_PAUSE);
        assertThat(gate.activePause().orElseThrow().cause()).isEqualTo(Cause.PROVIDER_SPEND_LIMIT);
        assertThat(gate.problem()).hasValueSatisfying(p -> assertThat(p).contains("spend limit"));
    }
}
