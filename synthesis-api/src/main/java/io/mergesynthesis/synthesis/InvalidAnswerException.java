package io.mergesynthesis.synthesis;

import java.util.List;

/**
 * A model answered, but its answer cannot be made into a merge for this conflict: not JSON, fields missing or
 * extra, a policy id the conflict does not have, a losing rule without exactly one action, too large, or a
 * merge the {@link MergeCheck} refused. The worker counts it as the failure reason {@code invalid_json}, a
 * transient failure, and keeps the message in the attempt's history.
 */
public final class InvalidAnswerException extends SynthesisException {

    public InvalidAnswerException(String message, List<ProviderCall> calls) {
        super(message, null, calls);
    }

    /** @param summary what was wrong with the answer's shape, by the synthesizer's own check (see the parent) */
    public InvalidAnswerException(String message, String summary, List<ProviderCall> calls) {
        super(message, summary, null, calls);
    }
}
