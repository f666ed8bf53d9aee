package io.mergesynthesis.synthesis;

import java.util.List;
import java.util.Optional;

/**
 * Writes a suggested merge for one conflict. This is the seam every synthesizer plugs in through: the stub, the
 * LLM synthesizer and third parties' alike, so it must not change without coordinating with their authors.
 *
 * <p>Implementations are called from several worker threads at once and must be thread-safe. They must not
 * touch the database: the worker holds no transaction or connection while a synthesizer runs, and it
 * validates the returned merge against {@code suggested-merge.schema.json} before storing anything. A call
 * may be interrupted when it exceeds the configured invoke timeout.
 *
 * <p>A synthesizer that pays for provider calls implements {@link #synthesizeWithCalls} as well, so that the
 * worker can write each call to the usage ledger; one that does not (the stub, most third-party ones) only
 * implements {@link #synthesize}. Why the seam grew so: docs/adr/0019; a guide for authors: docs/synthesizers.md.
 */
public interface MergeSynthesizer {

    /** The name this synthesizer is selected by in configuration ({@code synthesis.synthesizer}). */
    String name();

    /**
     * @throws SynthesisException when no merge can be written for this conflict (a transient failure:
     *                            the worker retries with backoff up to its attempt limit)
     */
    SuggestedMerge synthesize(ConflictSnapshot conflict, ResolvedModel model)
            throws SynthesisException, InterruptedException;

    /**
     * The merge and the provider calls paid for on the way. The worker calls this one.
     *
     * @throws SynthesisDeferred  when the provider asks to wait: the conflict is handed back, no attempt counted
     * @throws SynthesisException when no merge can be written this time; {@link SynthesisException#calls()}
     *                            carries the calls paid for anyway
     */
    default Synthesis synthesizeWithCalls(ConflictSnapshot conflict, ResolvedModel model)
            throws SynthesisException, InterruptedException {
        return Synthesis.free(synthesize(conflict, model));
    }

    /**
     * {@link #synthesizeWithCalls(ConflictSnapshot, ResolvedModel)}, handing each answered call to {@code early}
     * before the synthesizer makes another call for the same attempt. The worker calls this one; a synthesizer
     * that makes at most one call per attempt need not implement it.
     */
    default Synthesis synthesizeWithCalls(ConflictSnapshot conflict, ResolvedModel model, CallRecorder early)
            throws SynthesisException, InterruptedException {
        return synthesizeWithCalls(conflict, model);
    }

    /**
     * A problem that stops this synthesizer from working at all (for example a provider that refuses its key),
     * for the health check; empty when it can work.
     */
    default Optional<String> problem() {
        return Optional.empty();
    }

    /**
     * The circuit of every provider this synthesizer calls, one entry per configured provider and always the same
     * providers in the same order; empty for a synthesizer that calls none.
     */
    default List<CircuitStatus> circuits() {
        return List.of();
    }

    /**
     * Every provider this synthesizer calls, as {@link #circuits()} lists them, with the limit and pace it keeps
     * for each; by default the circuits alone, with neither.
     */
    default List<ProviderState> providerStates() {
        return circuits().stream().map(c -> new ProviderState(c, null, 0)).toList();
    }
}
