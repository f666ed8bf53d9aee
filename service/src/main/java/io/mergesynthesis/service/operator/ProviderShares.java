package io.mergesynthesis.service.operator;

import io.mergesynthesis.service.db.CallShares;
import io.mergesynthesis.service.db.ScopedTransactions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * Each org's share of the provider calls of the last minute on the whole deployment, beside the share its weight
 * is due, so that an operator sees whether the fair claims give every waiting org its part. An org called in the
 * minute had conflicts waiting, so the due shares are reckoned among the orgs called.
 */
public final class ProviderShares {

    /** Long enough to hold many calls per org, short enough to show the shares of now rather than of the hour. */
    public static final Duration SPAN = Duration.ofMinutes(1);
    /** The most orgs listed: those with the most calls, which are the ones a page can show at a glance. */
    public static final int MOST_ORGS = 20;

    private final ScopedTransactions transactions;

    public ProviderShares(ScopedTransactions transactions) {
        this.transactions = transactions;
    }

    /**
     * One org's calls in the span, its share of all the calls, its weight and its due share: its weight over the
     * weights of every org called.
     */
    public record OrgShare(UUID org, long calls, double share, int weight, double dueShare) {
    }

    /** The orgs with the most calls, most first, out of {@code orgsCalled} orgs and {@code calls} calls in all. */
    public record Shares(List<OrgShare> orgs, long orgsCalled, long calls) {
    }

    /** The shares of the minute up to {@code now}. */
    public Shares lastMinute(Instant now) {
        List<CallShares.OrgCalls> rows = transactions.crossTenant(handle ->
                CallShares.byOrg(handle, now.minus(SPAN), now, MOST_ORGS));
        if (rows.isEmpty()) {
            return new Shares(List.of(), 0, 0);
        }
        long calls = rows.get(0).allCalls();
        long weights = rows.get(0).allWeights();
        return new Shares(rows.stream().map(r -> new OrgShare(r.org(), r.calls(), (double) r.calls() / calls,
                r.weight(), (double) r.weight() / weights)).toList(), rows.get(0).allOrgs(), calls);
    }
}
