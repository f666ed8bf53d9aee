package io.mergesynthesis.bench;

/**
 * What the big-tenants step times, and the p95 each read is held to in a database of
 * {@value #TARGET_CONFLICTS} conflicts ({@link #allowance} scales it for a larger one). The export is a rate, held
 * to nothing.
 */
enum TenantRead {
    API_FIRST_PAGE("api_first_page", "GET /v1/conflicts, first page", 50),
    API_INBOX_STATUS("api_inbox_status", "GET /v1/conflicts?inbox_status=acknowledged", 100),
    API_SYNTHESIS_STATE("api_synthesis_state", "GET /v1/conflicts?synthesis_state=max_attempts_exceeded", 100),
    API_ACTION("api_action", "GET /v1/conflicts?action=knowledge_query", 100),
    API_TARGET_PREFIX("api_target_prefix", "GET /v1/conflicts?q=" + FinishedConflict.COMMON_PREFIX, 100),
    API_POLICY_PREFIX("api_policy_prefix", "GET /v1/conflicts?q=" + FinishedConflict.RARE_PREFIX, 100),
    API_SEARCH_NEARLY_ALL("api_search_nearly_all", "GET /v1/conflicts?q=" + FinishedConflict.NEARLY_ALL_SEARCH, 100),
    API_SEARCH_SHARED_TRIGRAMS("api_search_shared_trigrams",
            "GET /v1/conflicts?q=" + FinishedConflict.SHARED_TRIGRAMS_SEARCH, 100),
    WEB_INBOX("web_inbox", "GET / (web inbox), first page", 250),
    WEB_INBOX_FILTERED("web_inbox_filtered", "GET /?inbox_status=open&action=data_export", 250),
    WEB_INBOX_OLDEST("web_inbox_oldest", "GET /?sort=oldest", 250),
    USAGE("usage", "GET /v1/usage", 100),
    OPERATOR("operator", "GET /operator (platform session)", 500),
    PICKUP("pickup", "POST /v1/conflicts to its stored merge", 1_000),
    EXPORT("export", "GET /v1/events, NDJSON", 0);

    /** The size of database the targets are stated for. */
    static final long TARGET_CONFLICTS = 2_000_000;
    /** The size at which twice the target is allowed. */
    static final long DOUBLE_ALLOWANCE_CONFLICTS = 10_000_000;

    final String key;
    final String label;
    /** The p95 bound in milliseconds at {@value #TARGET_CONFLICTS} conflicts; 0 for a read held to nothing. */
    final double p95Millis;

    TenantRead(String key, String label, double p95Millis) {
        this.key = key;
        this.label = label;
        this.p95Millis = p95Millis;
    }

    /**
     * How much more time a read may take in a database of {@code conflicts}: none up to the stated size, twice the
     * time at ten million, and in between in proportion, so that a run at any size is held to something.
     */
    static double allowance(long conflicts) {
        if (conflicts <= TARGET_CONFLICTS) {
            return 1.0;
        }
        double past = (double) (conflicts - TARGET_CONFLICTS) / (DOUBLE_ALLOWANCE_CONFLICTS - TARGET_CONFLICTS);
        return 1.0 + Math.min(past, 1.0);
    }
}
