package io.mergesynthesis.service.health;

import com.codahale.metrics.health.HealthCheck;
import io.mergesynthesis.synthesis.CircuitStatus;
import io.mergesynthesis.synthesis.MergeSynthesizer;

/**
 * "llm-&lt;provider&gt;": unhealthy while that provider's circuit is open, that is while the provider fails for
 * every conflict and this replica holds its calls back. The replica itself is fine meanwhile: conflicts wait
 * uncounted and go out again on the provider's first answer.
 */
public final class CircuitHealthCheck extends HealthCheck {

    private final MergeSynthesizer synthesizer;
    private final String provider;

    public CircuitHealthCheck(MergeSynthesizer synthesizer, String provider) {
        this.synthesizer = synthesizer;
        this.provider = provider;
    }

    public static String nameFor(String provider) {
        return "llm-" + provider;
    }

    @Override
    protected Result check() {
        CircuitStatus circuit = synthesizer.circuits().stream()
                .filter(c -> c.provider().equals(provider))
                .findFirst()
                .orElse(null);
        if (circuit == null) {
            return Result.unhealthy("the synthesizer no longer reports provider '" + provider + "'");
        }
        return circuit.open() ? Result.unhealthy(circuit.detail()) : Result.healthy(circuit.detail());
    }
}
