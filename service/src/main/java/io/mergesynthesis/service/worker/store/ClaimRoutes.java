package io.mergesynthesis.service.worker.store;

/**
 * What a claim does with each route ({@code claim.sql}): a route is the provider of an org's model, {@code *} for
 * the orgs on the configured primary. Each list names routes between commas, with a comma at each end
 * ({@code ,anthropic,*,}), and is empty when it names none.
 *
 * @param held  routes whose pending conflicts are left for later: their provider asked this replica to wait
 * @param paced routes of which a claim takes at most one pending conflict: their hold ended lately, and the
 *              provider lets this replica start a call only now and then
 */
public record ClaimRoutes(String held, String paced) {

    /** A claim that treats every route alike. */
    public static final ClaimRoutes NONE = new ClaimRoutes(ConflictLeases.NO_ROUTE_HELD, ConflictLeases.NO_ROUTE_HELD);

    public ClaimRoutes {
        requireListed(held, "held");
        requireListed(paced, "paced");
    }

    private static void requireListed(String routes, String which) {
        if (!routes.isEmpty() && !(routes.startsWith(",") && routes.endsWith(","))) {
            throw new IllegalArgumentException("the " + which + " routes must be names between commas with a comma "
                    + "at each end, or empty; was '" + routes + "'");
        }
    }
}
