package io.mergesynthesis.bench;

import java.util.UUID;

/**
 * How the big-tenants database is shaped: one org holding half of the conflicts, and a fleet of small orgs of
 * {@code fleetOrgConflicts} each holding the other half. Conflicts are numbered in the order they arrived; the big
 * org has every even one and the fleet the odd ones, in turn, so that every org's conflicts are spread over the
 * whole period, as they would be had they arrived side by side.
 *
 * @param bigOrgConflicts   the big org's conflicts, as many as the fleet's together
 * @param fleetOrgs         orgs in the fleet, numbered from 1 (the big org is {@value #BIG_ORG})
 * @param fleetOrgConflicts conflicts of each fleet org
 */
record TenantShape(int bigOrgConflicts, int fleetOrgs, int fleetOrgConflicts) {

    /** The big org's number for {@link Seeder#orgId}: the org the other steps read and mint tokens for. */
    static final int BIG_ORG = 0;

    /** A database of about {@code conflicts} conflicts; a smoke run's fleet orgs are smaller, so there are several. */
    static TenantShape of(int conflicts, boolean quick) {
        int perFleetOrg = quick ? 50 : 500;
        int fleetOrgs = Math.max(1, conflicts / 2 / perFleetOrg);
        return new TenantShape(fleetOrgs * perFleetOrg, fleetOrgs, perFleetOrg);
    }

    int conflicts() {
        return 2 * bigOrgConflicts;
    }

    /** The org number of conflict {@code n}. */
    int orgOf(int n) {
        return n % 2 == 0 ? BIG_ORG : 1 + (n / 2) % fleetOrgs;
    }

    /** The ids of every org, by number, computed once: the loader asks for one per row. */
    UUID[] orgIds() {
        UUID[] ids = new UUID[fleetOrgs + 1];
        for (int n = 0; n <= fleetOrgs; n++) {
            ids[n] = Seeder.orgId(n);
        }
        return ids;
    }

    String describe() {
        return String.format(java.util.Locale.ROOT, "%,d conflicts: one org of %,d and %,d orgs of %,d",
                conflicts(), bigOrgConflicts, fleetOrgs, fleetOrgConflicts);
    }
}
