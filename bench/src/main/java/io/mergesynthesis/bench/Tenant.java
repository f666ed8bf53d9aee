package io.mergesynthesis.bench;

/**
 * Whose reads the big-tenants step times: the one org that holds half the conflicts, an org of the fleet of small
 * ones beside it, or every org at once (the platform's pages and totals).
 */
enum Tenant {
    BIG_ORG("big_org", "the big org"),
    FLEET_ORG("fleet_org", "a fleet org"),
    EVERY_ORG("every_org", "every org");

    final String key;
    final String label;

    Tenant(String key, String label) {
        this.key = key;
        this.label = label;
    }
}
