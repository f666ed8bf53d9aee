package io.mergesynthesis.synthesis;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The synthesizer could not try this conflict now for a reason that is not the conflict's: the provider
 * answered with a rate limit or an overload, asked to wait, is down, or cannot be used at all (a rejected or
 * missing key). The
 * worker hands the conflict back without counting an attempt, claimable again after {@link #retryAfter()}.
 */
public final class SynthesisDeferred extends SynthesisException {

    /** Why the call was put off. */
    public enum Cause {
        /** The provider answered 429, or a pause it asked for earlier has not ended. */
        RATE_LIMITED,
        /** The provider answered that it is overloaded (529, or an "overloaded" error). */
        OVERLOADED,
        /** The provider refused the key (401, 403): a configuration problem, not the conflict's. */
        REFUSED_KEY,
        /**
         * The provider has no key on this replica, so no request is sent: a configuration problem, not the
         * conflict's. Only a model outside the route can meet it (the route's providers must have keys to start),
         * so other conflicts, on other models, go on.
         */
        MISSING_KEY,
        /** The provider says the account's own spend limit is reached: no retry helps until someone acts. */
        PROVIDER_SPEND_LIMIT,
        /**
         * This replica already has as many calls in flight to the provider as it allows itself, or has started as
         * many as the provider's stated rate limit leaves it for now.
         */
        AT_CONCURRENCY_LIMIT,
        /**
         * The provider fails for every conflict (unreachable, 5xx, no answer in time): its circuit is open, and
         * calls wait for the next probe.
         */
        PROVIDER_OUTAGE,
        /**
         * The provider failed the way an outage would, but not yet for enough different conflicts to call it one:
         * the conflict is tried again once before such a failure counts against it.
         */
        OUTAGE_SUSPECTED;

        /**
         * Whether the whole replica should stop claiming work for this provider until
         * {@link SynthesisDeferred#retryAfter()}: true when the provider asked to wait, is down or cannot be used,
         * false when only this one call was put off.
         */
        public boolean pausesProvider() {
            return this != AT_CONCURRENCY_LIMIT && this != OUTAGE_SUSPECTED && this != MISSING_KEY;
        }
    }

    private final Cause deferral;
    private final String provider;
    private final Duration retryAfter;

    public SynthesisDeferred(Cause deferral, String provider, Duration retryAfter, String message,
                             List<ProviderCall> calls) {
        this(deferral, provider, retryAfter, message, null, calls);
    }

    /** @param summary the deferral as the conflict's org may read it (see {@link SynthesisException#summary()}) */
    public SynthesisDeferred(Cause deferral, String provider, Duration retryAfter, String message, String summary,
                             List<ProviderCall> calls) {
        super(message, summary, null, calls);
        this.deferral = Objects.requireNonNull(deferral, "deferral");
        this.provider = Objects.requireNonNull(provider, "provider");
        this.retryAfter = Objects.requireNonNull(retryAfter, "retryAfter");
    }

    public Cause deferral() {
        return deferral;
    }

    /** The configured provider name that asked for the pause. */
    public String provider() {
        return provider;
    }

    /** How long to wait before the conflict is tried again; zero for at once. */
    public Duration retryAfter() {
        return retryAfter;
    }
}
