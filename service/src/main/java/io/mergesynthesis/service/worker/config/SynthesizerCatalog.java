package io.mergesynthesis.service.worker.config;

import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.MergeSynthesizerProvider;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * The synthesizers on the classpath, by configuration name, found through {@link ServiceLoader}: a jar that
 * lists a {@link MergeSynthesizerProvider} in {@code META-INF/services} is all it takes to add one.
 */
public final class SynthesizerCatalog {

    private final Map<String, MergeSynthesizerProvider> providers;

    private SynthesizerCatalog(Map<String, MergeSynthesizerProvider> providers) {
        this.providers = providers;
    }

    public static SynthesizerCatalog discover() {
        return of(ServiceLoader.load(MergeSynthesizerProvider.class).stream().map(ServiceLoader.Provider::get)
                .toList());
    }

    static SynthesizerCatalog of(List<MergeSynthesizerProvider> found) {
        Map<String, MergeSynthesizerProvider> byName = new TreeMap<>();
        for (MergeSynthesizerProvider provider : found) {
            MergeSynthesizerProvider clash = byName.putIfAbsent(provider.name(), provider);
            if (clash != null) {
                throw new IllegalStateException("two synthesizers are named '" + provider.name() + "': "
                        + clash.getClass().getName() + " and " + provider.getClass().getName());
            }
        }
        return new SynthesizerCatalog(byName);
    }

    /** This catalog and {@code builtIn} too, for a synthesizer the service builds itself (the LLM one). */
    public SynthesizerCatalog with(MergeSynthesizerProvider builtIn) {
        List<MergeSynthesizerProvider> all = new java.util.ArrayList<>(providers.values());
        all.add(builtIn);
        return of(all);
    }

    /** The names that {@code synthesis.synthesizer} may take, sorted. */
    public List<String> names() {
        return List.copyOf(providers.keySet());
    }

    /** @throws IllegalArgumentException naming the available synthesizers when {@code name} is not one */
    public MergeSynthesizer create(String name, Clock clock) {
        MergeSynthesizerProvider provider = providers.get(name);
        if (provider == null) {
            throw new IllegalArgumentException("synthesis.synthesizer is '" + name
                    + "', but no synthesizer has that name; available: " + String.join(", ", names()));
        }
        return provider.create(clock);
    }
}
