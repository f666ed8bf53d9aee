package io.mergesynthesis.service.health;

import com.codahale.metrics.health.HealthCheck;
import io.mergesynthesis.synthesis.MergeSynthesizer;

/**
 * "synthesizer": unhealthy while the synthesizer reports a problem that stops it from working at all, such as a
 * provider that refuses its key. Such a problem is reported here (and logged once by the synthesizer), not
 * retried conflict by conflict.
 */
public final class SynthesizerHealthCheck extends HealthCheck {

    public static final String NAME = "synthesizer";

    private final MergeSynthesizer synthesizer;

    public SynthesizerHealthCheck(MergeSynthesizer synthesizer) {
        this.synthesizer = synthesizer;
    }

    @Override
    protected Result check() {
        return synthesizer.problem().map(Result::unhealthy)
                .orElseGet(() -> Result.healthy("synthesizer " + synthesizer.name() + " reports no problem"));
    }
}
