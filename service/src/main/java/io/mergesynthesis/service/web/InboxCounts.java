package io.mergesynthesis.service.web;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/** How many of one org's conflicts are in each synthesis state and each inbox status. */
record InboxCounts(Map<String, Long> bySynthesisState, Map<String, Long> byInboxStatus, long total) {

    static final List<String> SYNTHESIS_STATES =
            List.of("pending", "in_progress", "done", "waiting_budget", "max_attempts_exceeded");
    static final List<String> INBOX_STATUSES = List.of("open", "acknowledged", "resolved");

    /** One scan of the org's rows, on a handle already scoped to {@code org}. */
    static InboxCounts of(Handle handle, UUID org) {
        Map<String, Long> states = zeros(SYNTHESIS_STATES);
        Map<String, Long> statuses = zeros(INBOX_STATUSES);
        long[] total = {0};
        handle.createQuery("""
                        SELECT synthesis_state, inbox_status, count(*) AS n
                          FROM policy_conflicts WHERE org_id = :org
                         GROUP BY synthesis_state, inbox_status""")
                .bind("org", org)
                .map((rs, ctx) -> {
                    long n = rs.getLong("n");
                    states.merge(rs.getString("synthesis_state"), n, Long::sum);
                    statuses.merge(rs.getString("inbox_status"), n, Long::sum);
                    total[0] += n;
                    return n;
                })
                .list();
        return new InboxCounts(states, statuses, total[0]);
    }

    private static Map<String, Long> zeros(List<String> keys) {
        Map<String, Long> map = new LinkedHashMap<>();
        keys.forEach(k -> map.put(k, 0L));
        return map;
    }
}
