package io.mergesynthesis.service.worker.pool;

import io.mergesynthesis.service.worker.attempt.AttemptRunner;
import io.mergesynthesis.service.worker.store.ClaimRoutes;
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
 * <p>A hold that ends leaves its route paced for {@link #PACED_AFTER_HOLD}: each claim takes at most one of its
 * conflicts. A provider that paces this replica's calls lets one start only now and then (seconds apart at the
 * smallest tiers), and every conflict claimed beyond the next turn would be handed straight back, a claim and a
 * hand-back for nothing, each time the hold ends.
 *
 * <p>A route is the provider of an org's own model, or, for orgs without one, the configured primary's provider,
 * which this replica learns from the first deferral of such an org.
 */
public final class ClaimHold implements AttemptRunner.Pool {

    /** How {@code claim.sql} names the route of orgs without a model of their own. */
    static final String DEFAULT_ROUTE = "*";

    /**
     * How long a route stays paced after its hold ends: longer than the turns of the smallest tiers are apart, so
     * that the next hand-back for a turn holds it again before it is let go; short enough that a route whose
     * provider no longer paces it claims freely again within seconds.
     */
    static final Duration PACED_AFTER_HOLD = Duration.ofSeconds(5);

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

    /** The routes held now and the routes paced now, as {@code claim.sql} takes them. */
    ClaimRoutes routes() {
        long now = ticker.nanos();
        StringBuilder held = new StringBuilder();
        StringBuilder paced = new StringBuilder();
        String fallback = defaultProvider;
        heldUntil.forEach((provider, until) -> {
            long left = until - now;
            StringBuilder into = left > 0 ? held : left + PACED_AFTER_HOLD.toNanos() > 0 ? paced : null;
            if (into != null) {
                into.append(',').append(provider);
                if (provider.equals(fallback)) {
                    into.append(',').append(DEFAULT_ROUTE);
                }
            }
        });
        return new ClaimRoutes(listed(held), listed(paced));
    }

    /** Names between commas, with a comma at each end; empty when there are none. */
    private static String listed(StringBuilder names) {
        return names.length() == 0 ? ConflictLeases.NO_ROUTE_HELD : names.append(',').toString();
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
