package io.mergesynthesis.service.db;

import io.mergesynthesis.service.core.InboxStatus;
import io.mergesynthesis.service.core.SynthesisState;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * The upkeep of the per-org counts the schema keeps as conflicts change (schema 14) and of the usage it keeps as
 * calls are recorded (schema 17): folding the rows changes add, recounting the conflicts, and finding where the
 * counts drifted. Every statement runs on a cross-tenant handle.
 */
public final class ConflictCounts {

    private static final String LOCK_FOLDING = SqlFiles.of(ConflictCounts.class, "lock_folding");
    private static final String FOLD = SqlFiles.of(ConflictCounts.class, "fold");
    private static final String FOLD_USAGE = SqlFiles.of(ConflictCounts.class, "fold_usage");
    private static final String WAIT_FOR_FOLDING = SqlFiles.of(ConflictCounts.class, "wait_for_folding");
    private static final String RECOUNT = SqlFiles.of(ConflictCounts.class, "recount");
    private static final String DRIFT = SqlFiles.of(ConflictCounts.class, "drift");

    /** One org and pair whose kept count is not the number of its conflicts. */
    public record Drift(UUID org, SynthesisState state, InboxStatus status, long kept, long actual) {
    }

    private ConflictCounts() {
    }

    /** How far one of the two folds (counts, usage) has gone: past this org (null at the start), or done. */
    public record FoldPosition(UUID after, boolean done) {

        static final FoldPosition START = new FoldPosition(null, false);
    }

    /** Where a fold goes on from, for the counts and for the usage. */
    public record FoldCursor(FoldPosition counts, FoldPosition usage) {

        public static final FoldCursor START = new FoldCursor(FoldPosition.START, FoldPosition.START);

        public boolean done() {
            return counts.done() && usage.done();
        }
    }

    /**
     * Folds, after {@code cursor}, the count rows of up to {@code orgs} orgs and the usage rows (schema 17) of up
     * to {@code orgs} orgs, unless another transaction is folding now.
     *
     * @return where the next call goes on from (done once both folds found fewer than {@code orgs} orgs to fold),
     *     or null when another fold held the turn
     */
    public static FoldCursor fold(Handle handle, FoldCursor cursor, int orgs) {
        boolean mine = handle.createQuery(LOCK_FOLDING).mapTo(Boolean.class).one();
        if (!mine) {
            return null;
        }
        return new FoldCursor(foldOnce(handle, FOLD, cursor.counts(), orgs),
                foldOnce(handle, FOLD_USAGE, cursor.usage(), orgs));
    }

    private static FoldPosition foldOnce(Handle handle, String statement, FoldPosition from, int orgs) {
        if (from.done()) {
            return from;
        }
        return handle.createQuery(statement).bind("after", from.after()).bind("maxOrgs", orgs)
                .map((rs, ctx) -> new FoldPosition(rs.getObject("last_org", UUID.class), rs.getInt("folded") < orgs))
                .one();
    }

    /**
     * Replaces every kept count with a fresh count of the conflicts, once no fold runs; changes of conflicts go on
     * meanwhile and stay counted.
     *
     * @return the count rows written
     */
    public static long recount(Handle handle) {
        handle.createQuery(WAIT_FOR_FOLDING).mapTo(String.class).one();
        return handle.createQuery(RECOUNT).mapTo(Long.class).one();
    }

    /** Every org and pair whose kept count differs from its conflicts; empty when the counts are exact. */
    public static List<Drift> drift(Handle handle) {
        return handle.createQuery(DRIFT)
                .map((rs, ctx) -> new Drift(rs.getObject("org_id", UUID.class),
                        SynthesisState.ofStored(rs.getString("synthesis_state")),
                        InboxStatus.ofStored(rs.getString("inbox_status")), rs.getLong("kept"), rs.getLong("actual")))
                .list();
    }
}
