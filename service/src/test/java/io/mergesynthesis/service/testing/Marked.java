package io.mergesynthesis.service.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * Conflicts the worker pool gave up on, written as the superuser the way the pool leaves them: marked, three
 * attempts, three lines of history and a "synthesis failed permanently" event. And what the re-queue tests read.
 */
public final class Marked {

    private Marked() {
    }

    /** A marked conflict of {@code org} whose last attempt failed for {@code reason}. */
    public static UUID conflict(Jdbi superuser, UUID org, String reason) {
        UUID id = UUID.randomUUID();
        superuser.useTransaction(h -> {
            h.createUpdate("""
                            INSERT INTO policy_conflicts (id, org_id, dedup_key, action, target, rules, winner_policy_id,
                                                          detected_at, synthesis_state, attempts, last_failure_reason,
                                                          failure_marker, not_before)
                            VALUES (:id, :org, :key, 'tool_call', 'jira.create_issue', '[]', 'p1', now(),
                                    'max_attempts_exceeded', 3, :reason, 'synthesis_max_attempts_exceeded',
                                    now() + interval '1 hour')""")
                    .bind("id", id).bind("org", org).bind("key", "marked-" + id).bind("reason", reason).execute();
            for (int attempt = 1; attempt <= 3; attempt++) {
                h.createUpdate("""
                                INSERT INTO synthesis_attempt_history (org_id, conflict_id, attempt, outcome, reason,
                                                                       detail)
                                VALUES (:org, :id, :attempt, :outcome, :reason, 'it failed')""")
                        .bind("org", org).bind("id", id).bind("attempt", attempt)
                        .bind("outcome", attempt < 3 ? "transient_failure" : "permanent_failure")
                        .bind("reason", reason).execute();
            }
            h.createUpdate("""
                            INSERT INTO conflict_events (org_id, conflict_id, event_type, details)
                            VALUES (:org, :id, 'synthesis_failed_permanently', '{"attempts": 3}')""")
                    .bind("org", org).bind("id", id).execute();
        });
        return id;
    }

    /** Moves a conflict to another synthesis state, as the worker would leave it there. */
    public static void setState(Jdbi superuser, UUID id, String state) {
        superuser.useHandle(h -> h.createUpdate("""
                        UPDATE policy_conflicts
                           SET synthesis_state = :state,
                               failure_marker = CASE WHEN :state = 'max_attempts_exceeded'
                                                     THEN 'synthesis_max_attempts_exceeded' END,
                               suggested_merge = CASE WHEN :state = 'done' THEN '{"schema_version": 1}'::jsonb END,
                               lease_owner = CASE WHEN :state = 'in_progress' THEN 'some-replica-1' END
                         WHERE id = :id""")
                .bind("id", id).bind("state", state).execute());
    }

    /**
     * {@code state|attempts|marker|last failure reason|claimable or later}, empty fields for NULLs: the synthesis
     * columns a re-queue changes.
     */
    public static String row(Jdbi superuser, UUID id) {
        return superuser.withHandle(h -> h.createQuery("""
                        SELECT concat_ws('|', synthesis_state, attempts, coalesce(failure_marker, ''),
                                         coalesce(last_failure_reason, ''),
                                         CASE WHEN not_before <= now() THEN 'claimable' ELSE 'later' END)
                          FROM policy_conflicts WHERE id = :id""")
                .bind("id", id).mapTo(String.class).one());
    }

    /** Every column of the row, as text: to show that a refused request changed nothing at all. */
    public static String everything(Jdbi superuser, UUID id) {
        return superuser.withHandle(h -> h.createQuery("SELECT c::text FROM policy_conflicts c WHERE id = :id")
                .bind("id", id).mapTo(String.class).one());
    }

    public static long historyLines(Jdbi superuser, UUID id) {
        return superuser.withHandle(h -> h.createQuery(
                        "SELECT count(*) FROM synthesis_attempt_history WHERE conflict_id = :id")
                .bind("id", id).mapTo(Long.class).one());
    }

    /** The conflict's newest history line, as {@code outcome|reason|attempt|detail}. */
    public static String lastHistoryLine(Jdbi superuser, UUID id) {
        return superuser.withHandle(h -> h.createQuery("""
                        SELECT outcome || '|' || reason || '|' || attempt || '|' || coalesce(detail, '')
                        FROM synthesis_attempt_history WHERE conflict_id = :id ORDER BY id DESC LIMIT 1""")
                .bind("id", id).mapTo(String.class).one());
    }

    /** The details of the conflict's one {@code synthesis_requeued} event; fails unless there is exactly one. */
    public static JsonNode onlyRequeueEvent(Jdbi superuser, UUID id) {
        List<String> details = superuser.withHandle(h -> h.createQuery("""
                        SELECT details::text FROM conflict_events
                        WHERE conflict_id = :id AND event_type = 'synthesis_requeued'""")
                .bind("id", id).mapTo(String.class).list());
        assertThat(details).as("synthesis_requeued events of %s", id).hasSize(1);
        return Seed.parse(details.get(0));
    }
}
