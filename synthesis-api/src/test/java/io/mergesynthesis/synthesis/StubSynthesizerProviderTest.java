package io.mergesynthesis.synthesis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

class StubSynthesizerProviderTest {

    @Test
    void theStubIsFoundByNameThroughTheServiceLoader() {
        // This is how the service selects a synthesizer, so the registration file is part of the contract.
        MergeSynthesizerProvider provider = ServiceLoader.load(MergeSynthesizerProvider.class).stream()
                .map(ServiceLoader.Provider::get)
                .filter(p -> p.name().equals("stub"))
                .findFirst()
                .orElseThrow();

        MergeSynthesizer synthesizer = provider.create(Clock.systemUTC());

        assertThat(synthesizer).isInstanceOf(StubSynthesizer.class);
        assertThat(synthesizer.name()).isEqualTo("stub");
    }
}
