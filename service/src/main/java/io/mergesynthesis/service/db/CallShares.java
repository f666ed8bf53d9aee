package io.mergesynthesis.service.db;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/** The provider calls of a span of time by org, from the usage ledger, as every replica wrote it; cross-tenant. */
public final class CallShares {

    private static final String BY_ORG = SqlFiles.of(CallShares.class, "by_org");

    /**
     * One org's calls in the span and its weight, with the number, the calls and the weights of the orgs called in the span
     * (the same on each row), whether or not that org is among those returned.
     */
    public record OrgCalls(UUID org, long calls, int weight, long allOrgs, long allCalls, long allWeights) {
    }

    private CallShares() {
    }

    /** The orgs called after {@code since} up to {@code now}, most calls first, at most {@code limit}. */
    public static List<OrgCalls> byOrg(Handle handle, Instant since, Instant now, int limit) {
        return handle.createQuery(BY_ORG)
                .bind("since", Timestamp.from(since))
                .bind("now", Timestamp.from(now))
                .bind("limit", limit)
                .map((rs, ctx) -> new OrgCalls(rs.getObject("org_id", UUID.class), rs.getLong("calls"),
                        rs.getInt("weight"), rs.getLong("all_orgs"), rs.getLong("all_calls"), rs.getLong("all_weights")))
                .list();
    }
}
