package io.mergesynthesis.synthesis;

import java.util.Objects;

/**
 * How a synthesizer treats one of its providers now, for the operator's view of the replicas: its circuit, the
 * calls it allows itself in flight, and the pace it keeps.
 *
 * @param circuit           the provider's circuit, as {@link MergeSynthesizer#circuits()} reports it
 * @param concurrencyLimit  the calls allowed in flight at once now; null when the synthesizer keeps no such limit
 * @param requestsPerSecond the rate it allows itself now; 0 when it is not pacing
 */
public record ProviderState(CircuitStatus circuit, Integer concurrencyLimit, double requestsPerSecond) {

    public ProviderState {
        Objects.requireNonNull(circuit, "circuit");
    }
}
