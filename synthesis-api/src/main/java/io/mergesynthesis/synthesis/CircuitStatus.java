package io.mergesynthesis.synthesis;

import java.util.Objects;

/**
 * Whether a synthesizer still calls one of its providers, for the health check {@code llm-<provider>}: a circuit
 * opens when the provider fails for every conflict (an outage) and closes again on its first good answer.
 *
 * @param provider the configured provider name
 * @param open     true while calls to the provider are held back
 * @param detail   a sentence for operators: since when, after what, when the next probe goes out
 */
public record CircuitStatus(String provider, boolean open, String detail) {

    public CircuitStatus {
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(detail, "detail");
    }
}
