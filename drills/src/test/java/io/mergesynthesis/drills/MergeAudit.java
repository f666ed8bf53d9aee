package io.mergesynthesis.drills;

import io.mergesynthesis.testsupport.Wait;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * What the database says about the pool's work, read as the superuser (row-level security does not hold it, so
 * it sees every org). These are the end states a drill holds the product to: each conflict finished exactly once,
 * no lease left behind, one "merge synthesized" event per stored merge.
 */
final class MergeAudit {

    private MergeAudit() {
    }

    /**
     * Every conflict, sorted by how it ended.
     *
     * @param merged conflicts done with a suggested merge stored
     * @param marked conflicts stamped with the max-attempts marker
     * @param unfinished conflicts that are neither (still waiting, in progress, or in a state no rule allows)
     * @param leased conflicts still carrying a lease: in progress, or with an owner or expiry left on the row
     * @param mergeEvents "merge synthesized" events in all
     * @param repeatedMergeEvents conflicts with more than one "merge synthesized" event
     * @param mergedWithoutEvent stored merges without their event
     * @param eventWithoutMerge "merge synthesized" events of conflicts that hold no merge
     */
    record Tally(long conflicts, long merged, long marked, long unfinished, long leased, long mergeEvents,
                 long repeatedMergeEvents, long mergedWithoutEvent, long eventWithoutMerge) {

        @Override
        public String toString() {
            return conflicts + " conflicts: " + merged + " merged, " + marked + " marked max-attempts, "
                    + unfinished + " unfinished, " + leased + " still leased; " + mergeEvents
                    + " merge events, " + repeatedMergeEvents + " conflicts with more than one, "
                    + mergedWithoutEvent + " merges without one, " + eventWithoutMerge + " without a merge";
        }
    }

    static Tally tally(DrillDatabase database) {
        long conflicts = database.count("SELECT count(*) FROM policy_conflicts");
        long merged = database.count("SELECT count(*) FROM policy_conflicts"
                + " WHERE synthesis_state = 'done' AND suggested_merge IS NOT NULL");
        long marked = database.count("SELECT count(*) FROM policy_conflicts"
                + " WHERE synthesis_state = 'max_attempts_exceeded'"
                + " AND failure_marker = 'synthesis_max_attempts_exceeded'");
        long leased = database.count("SELECT count(*) FROM policy_conflicts WHERE synthesis_state = 'in_progress'"
                + " OR lease_owner IS NOT NULL OR lease_expires_at IS NOT NULL");
        long mergeEvents = database.count("SELECT count(*) FROM conflict_events"
                + " WHERE event_type = 'merge_synthesized'");
        long repeated = database.count("SELECT count(*) FROM (SELECT conflict_id FROM conflict_events"
                + " WHERE event_type = 'merge_synthesized' GROUP BY conflict_id HAVING count(*) > 1) repeated");
        long mergedWithoutEvent = database.count("SELECT count(*) FROM policy_conflicts c"
                + " WHERE c.synthesis_state = 'done' AND NOT EXISTS (SELECT 1 FROM conflict_events e"
                + " WHERE e.conflict_id = c.id AND e.event_type = 'merge_synthesized')");
        long eventWithoutMerge = database.count("SELECT count(DISTINCT e.conflict_id) FROM conflict_events e"
                + " JOIN policy_conflicts c ON c.id = e.conflict_id"
                + " WHERE e.event_type = 'merge_synthesized' AND c.suggested_merge IS NULL");
        return new Tally(conflicts, merged, marked, conflicts - merged - marked, leased, mergeEvents, repeated,
                mergedWithoutEvent, eventWithoutMerge);
    }

    /** Conflicts still to be worked on: pending (perhaps in backoff) or in progress. */
    static long waiting(DrillDatabase database) {
        return database.count("SELECT count(*) FROM policy_conflicts"
                + " WHERE synthesis_state IN ('pending', 'in_progress')");
    }

    /** Conflicts nobody holds yet: new, or back from a failed attempt (perhaps still in backoff). */
    static long pending(DrillDatabase database) {
        return database.count("SELECT count(*) FROM policy_conflicts WHERE synthesis_state = 'pending'");
    }

    /** Conflicts in progress under a lease of {@code owner} (one process's pool), expired or not. */
    static long leasesHeldBy(DrillDatabase database, String owner) {
        return database.count("SELECT count(*) FROM policy_conflicts"
                + " WHERE synthesis_state = 'in_progress' AND lease_owner = ?", owner);
    }

    /** The conflicts in progress under a lease of {@code owner}. */
    static Set<UUID> leasedBy(DrillDatabase database, String owner) {
        return new HashSet<>(database.list("SELECT id FROM policy_conflicts"
                + " WHERE synthesis_state = 'in_progress' AND lease_owner = ?", UUID.class, owner));
    }

    /**
     * Waits until no conflict is waiting, polling; how long that took, or empty if some still wait after
     * {@code timeout}.
     */
    static Optional<Duration> awaitDrained(DrillDatabase database, Duration timeout) {
        long started = System.nanoTime();
        boolean drained = Wait.holdsWithin("no conflict waiting", timeout, Duration.ofMillis(200),
                () -> waiting(database) == 0);
        return drained ? Optional.of(Duration.ofNanos(System.nanoTime() - started)) : Optional.empty();
    }
}
