package io.mergesynthesis.synthesis;

import java.util.List;
import java.util.Objects;

/**
 * A suggested merge together with the paid provider calls that produced it, in the order they were made.
 *
 * @param calls empty for a synthesizer that calls no provider
 */
public record Synthesis(SuggestedMerge merge, List<ProviderCall> calls) {

    public Synthesis {
        Objects.requireNonNull(merge, "merge");
        calls = List.copyOf(calls);
    }

    /** A merge that cost no provider call. */
    public static Synthesis free(SuggestedMerge merge) {
        return new Synthesis(merge, List.of());
    }
}
