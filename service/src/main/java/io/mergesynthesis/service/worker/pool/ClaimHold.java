package io.mergesynthesis.service.worker.pool;

import io.mergesynthesis.service.worker.attempt.AttemptRunner;
import io.mergesynthesis.service.worker.store.ConflictLeases;
import io.mergesynthesis.synthesis.Ticker;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What holds this replica's claims back: every claim for good once the pool stops, and for a while the claims of
 * a route whose provider asked this replica to wait. The workers learn of both here (as the
 * {@link AttemptRunner.Pool} they run in); the claim loop and the completer's refill leave the held routes'
 * conflicts for later, and go on claiming those of every other route, so that one provider's pause does not
 * stop another org's.
 *
 * <p>A route is the provider of an org's own model, or, for orgs without one, the configured primary's provider,
 * which this replica learns from the first deferral of such an org.
 */
public final class ClaimHold implements AttemptRunner.Pool {

    /** How {@code claim.sql} names the route of orgs without a model of their own. */
    static final String DEFAULT_ROUTE = "*";

    private final Ticker ticker;
    /** Until when, on the ticker, each provider asked this replica to wait. */
    private final Map<String, Long> heldUntil = new ConcurrentHashMap<>();
    /** The provider of the route of orgs without a model of their own, once a deferral named it. */
    private volatile String defaultProvider;
    private volatile boolean stopping;

    public ClaimHold(Ticker ticker) {
        this.ticker = ticker;
    }

    void stop() {
        stopping = true;
    }

    @Override
    public boolean stopping() {
        return stopping;
    }

    /**
     * {@code provider} asked the whole replica to wait {@code retryAfter} (a rate limit, an overload, a refused
     * key): the claims leave its routes' conflicts for later until then. Leases already held are tried, and
     * deferred uncounted, as they come.
     */
    @Override
    public void pauseClaims(String provider, boolean defaultRoute, Duration retryAfter) {
        if (defaultRoute) {
            defaultProvider = provider;
        }
        long until = ticker.nanos() + retryAfter.toNanos();
        heldUntil.merge(provider, until, Math::max);
    }

    /**
     * The routes held now, as {@code claim.sql} takes them: provider names between commas, {@code *} for the
     * default route when its provider is held; {@link ConflictLeases#NO_ROUTE_HELD} when none is.
     */
    String heldRoutes() {
        long now = ticker.nanos();
        StringBuilder held = new StringBuilder();
        String fallback = defaultProvider;
        heldUntil.forEach((provider, until) -> {
            if (until - now > 0) {
                held.append(',').append(provider);
                if (provider.equals(fallback)) {
                    held.append(',').append(DEFAULT_ROUTE);
                }
            }
        });
        return held.length() == 0 ? ConflictLeases.NO_ROUTE_HELD : held.append(',').toString();
    }

    /** How long until the first hold in force ends, in nanoseconds; zero or less when none holds. */
    long nextHoldEndsIn() {
        long now = ticker.nanos();
        return heldUntil.values().stream().mapToLong(until -> until - now).filter(left -> left > 0).min().orElse(0);
    }

    /** True when a claim now would be worked on: the pool runs. Held routes are left out of the claim itself. */
    boolean claimsWanted() {
        return !stopping;
    }
}
