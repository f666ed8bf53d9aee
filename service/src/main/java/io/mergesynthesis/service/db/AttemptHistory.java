package io.mergesynthesis.service.db;

import io.mergesynthesis.service.core.AttemptHistoryLine;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * Why each attempt at a conflict that did not store a merge ended ({@code synthesis_attempt_history}), all of
 * its SQL: written by the worker in the transaction that records the attempt's end, read by the conflict view.
 */
public final class AttemptHistory {

    /** Counted towards the attempt limit, retried later. */
    public static final String TRANSIENT_FAILURE = "transient_failure";
    /** The last attempt: the conflict got the permanent marker. */
    public static final String PERMANENT_FAILURE = "permanent_failure";
    /** Not counted: handed back for a reason that is not the conflict's (a rate limit, a budget, an outage). */
    public static final String DEFERRED = "deferred";

    private AttemptHistory() {
    }


    /** A detail as the history keeps it: its first 500 characters. */
    public static String detail(String detail) {
        return detail == null || detail.length() <= 500 ? detail : detail.substring(0, 500);
    }

    /** The history of one conflict, oldest first; runs under that conflict's org scope. */
    public static List<AttemptHistoryLine> of(Handle handle, UUID conflictId) {
        return handle.createQuery(OF)
                .bind("id", conflictId)
                .map((rs, ctx) -> new AttemptHistoryLine(rs.getInt("attempt"), rs.getString("outcome"), rs.getString("reason"),
                        rs.getString("detail"), rs.getTimestamp("finished_at").toInstant(),
                        rs.getTimestamp("not_before") == null ? null : rs.getTimestamp("not_before").toInstant()))
                .list();
    }

    private static final String OF = SqlFiles.of(AttemptHistory.class, "of");
}
