package io.mergesynthesis.synthesis;

import java.time.Clock;

/** Makes the {@link StubSynthesizer} selectable as {@code synthesis.synthesizer: stub}. */
public final class StubSynthesizerProvider implements MergeSynthesizerProvider {

    @Override
    public String name() {
        return StubSynthesizer.NAME;
    }

    @Override
    public MergeSynthesizer create(Clock clock) {
        return new StubSynthesizer(clock);
    }
}
