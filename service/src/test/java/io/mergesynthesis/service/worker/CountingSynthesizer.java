package io.mergesynthesis.service.worker;

import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.SuggestedMerge;
import io.mergesynthesis.synthesis.SynthesisException;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts calls per conflict, then does what the wrapped synthesizer does. */
final class CountingSynthesizer implements MergeSynthesizer {

    private final MergeSynthesizer inner;
    final Map<UUID, AtomicInteger> calls = new ConcurrentHashMap<>();
    final AtomicInteger total = new AtomicInteger();

    CountingSynthesizer(MergeSynthesizer inner) {
        this.inner = inner;
    }

    @Override
    public String name() {
        return inner.name();
    }

    @Override
    public SuggestedMerge synthesize(ConflictSnapshot conflict, ResolvedModel model)
            throws SynthesisException, InterruptedException {
        calls.computeIfAbsent(conflict.conflictId(), id -> new AtomicInteger()).incrementAndGet();
        total.incrementAndGet();
        return inner.synthesize(conflict, model);
    }

    int callsFor(UUID conflictId) {
        AtomicInteger count = calls.get(conflictId);
        return count == null ? 0 : count.get();
    }
}
