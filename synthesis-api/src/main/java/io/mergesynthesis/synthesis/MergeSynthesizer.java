package io.mergesynthesis.synthesis;

/**
 * Writes a suggested merge for one conflict. This is the seam where a real LLM synthesizer replaces the stub.
 *
 * <p>Implementations are called from several worker threads at once and must be thread-safe. They must not
 * touch the database: the worker holds no transaction or connection while a synthesizer runs, and it
 * validates the returned merge against {@code suggested-merge.schema.json} before storing anything. A call
 * may be interrupted when it exceeds the configured invoke timeout.
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
}
