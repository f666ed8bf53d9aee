package io.mergesynthesis.service.synthesis;

import io.mergesynthesis.llm.LlmSettings;
import io.mergesynthesis.llm.LlmSynthesizer;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.MergeSynthesizerProvider;
import io.prometheus.client.CollectorRegistry;
import java.time.Clock;

/**
 * Makes the LLM synthesizer selectable as {@code synthesis.synthesizer: llm}. Unlike a third party's synthesizer
 * it is not found through {@link java.util.ServiceLoader}: it needs the service's {@code llm:} settings and its
 * metrics registry, so the service offers it to the catalog itself (ADR 0019).
 */
public final class LlmSynthesizerProvider implements MergeSynthesizerProvider {

    private final LlmSettings settings;
    private final CollectorRegistry registry;

    public LlmSynthesizerProvider(LlmSettings settings, CollectorRegistry registry) {
        this.settings = settings;
        this.registry = registry;
    }

    @Override
    public String name() {
        return LlmSynthesizer.NAME;
    }

    /** @throws IllegalArgumentException listing what is wrong with the {@code llm:} settings, keys never shown */
    @Override
    public MergeSynthesizer create(Clock clock) {
        return new LlmSynthesizer(settings, clock, registry);
    }
}
