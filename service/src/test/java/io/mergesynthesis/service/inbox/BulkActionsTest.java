package io.mergesynthesis.service.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.mergesynthesis.service.auth.Caller;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.core.StoredConflict;
import io.mergesynthesis.service.inbox.BulkActions.Operation;
import io.mergesynthesis.service.inbox.BulkActions.Refusal;
import io.mergesynthesis.service.requeue.ConflictRequeue;
import io.mergesynthesis.service.testing.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bulk actions go through the single actions' use cases: the same events, one per change, the same refusals, and
 * the caller's org only; another org's conflict among the chosen is refused as not found and left as it was.
 */
class BulkActionsTest {

    static TestDatabase database;
    static Jdbi superuser;
    static BulkActions bulk;

    final UUID org = UUID.randomUUID();
    final Caller admin = new Caller(UUID.randomUUID(), Role.ORG_ADMIN, org);

    @BeforeAll
    static void useCases() {
        database = TestDatabase.fresh();
        superuser = database.jdbi();
        ConflictInbox inbox = new ConflictInbox(database.transactions(), new ObjectMapper());
        bulk = new BulkActions(new InboxReads(database.transactions()), inbox,
                new ConflictRequeue(database.transactions()));
    }

    private UUID conflict(UUID owner, String target, String state) {
        UUID id = UUID.randomUUID();
        boolean marked = state.equals("max_attempts_exceeded");
        superuser.useHandle(h -> h.createUpdate("""
                        INSERT INTO policy_conflicts (id, org_id, dedup_key, action, target, rules, winner_policy_id,
                                                      detected_at, synthesis_state, suggested_merge, failure_marker,
                                                      last_failure_reason, attempts)
                        VALUES (:id, :org, :key, 'tool_call', :target, '[]', 'p1', now(), :state,
                                CASE WHEN :state = 'done' THEN '{}'::jsonb END,
                                CASE WHEN :marked THEN 'synthesis_max_attempts_exceeded' END,
                                CASE WHEN :marked THEN 'synthesizer' END, CASE WHEN :marked THEN 3 ELSE 0 END)""")
                .bind("id", id).bind("org", owner).bind("key", "k-" + id).bind("target", target).bind("state", state)
                .bind("marked", marked).execute());
        return id;
    }

    private long events(UUID id, String type) {
        return superuser.withHandle(h -> h.createQuery(
                        "SELECT count(*) FROM conflict_events WHERE conflict_id = :id AND event_type = :type")
                .bind("id", id).bind("type", type).mapTo(Long.class).one());
    }

    private String row(UUID id) {
        return superuser.withHandle(h -> h.createQuery(
                        "SELECT concat_ws('|', inbox_status, resolution, synthesis_state, updated_at) FROM policy_conflicts WHERE id = :id")
                .bind("id", id).mapTo(String.class).one());
    }

    @Test
    void eachChangeWritesTheSingleActionsEventAndAnotherOrgsConflictIsNotFound() {
        UUID a = conflict(org, "t.a", "pending");
        UUID b = conflict(org, "t.b", "done");
        UUID theirs = conflict(UUID.randomUUID(), "their.secret", "pending");
        String theirsBefore = row(theirs);

        BulkActions.Summary acked = bulk.onConflicts(admin, Operation.ACKNOWLEDGE, List.of(a, b, theirs, a), null);
        assertThat(acked.changed()).extracting(StoredConflict::id).containsExactly(a, b);
        assertThat(acked.refused()).containsExactly(new Refusal(theirs, null, "not found in this org's inbox"));
        assertThat(events(a, "conflict_acknowledged")).isEqualTo(1);
        assertThat(row(theirs)).isEqualTo(theirsBefore);

        BulkActions.Summary resolved = bulk.onConflicts(admin, Operation.RESOLVE_REJECTED, List.of(a, b), "one note");
        assertThat(resolved.changed()).hasSize(2).allSatisfy(c -> assertThat(c.resolutionNote()).isEqualTo("one note"));
        BulkActions.Summary again = bulk.onConflicts(admin, Operation.RESOLVE_MANUAL, List.of(a), null);
        assertThat(again.changed()).isEmpty();
        assertThat(again.refused()).singleElement().satisfies(r -> assertThat(r.reason())
                .isEqualTo("already resolved as rejected_suggestion: a resolution is final"));
        assertThat(events(a, "conflict_resolved")).isEqualTo(1);
        BulkActions.Summary ackResolved = bulk.onConflicts(admin, Operation.ACKNOWLEDGE, List.of(b), null);
        assertThat(ackResolved.refused()).singleElement().satisfies(r -> assertThat(r.reason())
                .isEqualTo("already resolved"));
    }

    @Test
    void onlyAFailedSynthesisIsTriedAgain() {
        UUID marked = conflict(org, "t.marked", "max_attempts_exceeded");
        UUID done = conflict(org, "t.done", "done");
        BulkActions.Summary retried = bulk.onConflicts(admin, Operation.RETRY, List.of(marked, done), null);
        assertThat(retried.changed()).singleElement().satisfies(c -> assertThat(c.synthesisState().wireName())
                .isEqualTo("pending"));
        assertThat(retried.refused()).singleElement().satisfies(r -> assertThat(r.reason())
                .startsWith("not retryable: its synthesis is merge ready"));
        assertThat(events(marked, "synthesis_requeued")).isEqualTo(1);
        assertThat(events(done, "synthesis_requeued")).isZero();
    }

    @Test
    void everyConflictMatchingTheFilterIsActedOnUpToTheCap() {
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            ids.add(conflict(org, (i < 5 ? "match." : "other.") + i, "pending"));
        }
        BulkActions.Summary summary = bulk.onMatching(admin, Operation.ACKNOWLEDGE,
                new InboxFilter(null, null, null, "match."), null);
        assertThat(summary.changed()).extracting(StoredConflict::id).containsExactlyInAnyOrderElementsOf(ids.subList(0, 5));
        assertThat(summary.capped()).isFalse();
        assertThat(events(ids.get(5), "conflict_acknowledged")).isZero();

        List<UUID> many = new ArrayList<>();
        for (int i = 0; i < BulkActions.MAX_CONFLICTS + 3; i++) {
            many.add(UUID.randomUUID());
        }
        BulkActions.Summary capped = bulk.onConflicts(admin, Operation.ACKNOWLEDGE, many, null);
        assertThat(capped.capped()).isTrue();
        assertThat(capped.refused()).hasSize(BulkActions.MAX_CONFLICTS);
    }
}
