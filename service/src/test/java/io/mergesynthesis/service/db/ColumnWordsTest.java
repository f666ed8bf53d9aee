package io.mergesynthesis.service.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mergesynthesis.service.testing.TestDatabase;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The columns that hold one word of a fixed list refuse any other word, whichever statement writes it and
 * whether the word comes as a literal or as a bound string, and nothing of the refused write is kept. The lists
 * are domains (migration 7): these tests hold them to what the table constraints they replaced enforced.
 */
class ColumnWordsTest {

    private static final String CHECK_VIOLATION = "23514";
    private static final UUID ORG = UUID.fromString("aaaaaaaa-0000-4000-8000-00000000000a");

    private Jdbi superuser;
    private UUID conflict;

    @BeforeEach
    void oneConflict() {
        superuser = TestDatabase.fresh().jdbi();
        conflict = UUID.randomUUID();
        superuser.useHandle(h -> h.createUpdate("""
                        INSERT INTO policy_conflicts (id, org_id, dedup_key, action, target, rules, winner_policy_id,
                                                      detected_at)
                        VALUES (:id, :org, 'words', 'tool_call', 't', '[]', 'p', now())""")
                .bind("id", conflict).bind("org", ORG).execute());
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource({
            "synthesis_state, finished, synthesis_state",
            "synthesis_state, PENDING, synthesis_state",
            "last_failure_reason, timeout, failure_reason",
            "inbox_status, archived, inbox_status",
            "action, shell_command, conflict_action",
            "failure_marker, gave_up, failure_marker"})
    void aConflictColumnRefusesAWordOutsideItsList(String column, String word, String list) {
        String before = row();

        assertThatThrownBy(() -> superuser.useHandle(h -> h.createUpdate(
                        "UPDATE policy_conflicts SET " + column + " = :word WHERE id = :id")
                .bind("word", word).bind("id", conflict).execute()))
                .satisfies(e -> assertThat(sqlState(e)).isEqualTo(CHECK_VIOLATION))
                .hasMessageContaining("domain " + list);

        assertThat(row()).isEqualTo(before);
    }

    @Test
    void aResolutionOutsideItsListIsRefusedLikeAnyOther() {
        assertThatThrownBy(() -> superuser.useHandle(h -> h.createUpdate("""
                        UPDATE policy_conflicts SET inbox_status = 'resolved', resolution = :word WHERE id = :id""")
                .bind("word", "ignored").bind("id", conflict).execute()))
                .satisfies(e -> assertThat(sqlState(e)).isEqualTo(CHECK_VIOLATION))
                .hasMessageContaining("resolution");
    }

    @Test
    void anEventTypeOutsideItsListIsRefusedAndNoEventIsKept() {
        assertThatThrownBy(() -> superuser.useHandle(h -> h.createUpdate("""
                        INSERT INTO conflict_events (org_id, conflict_id, event_type) VALUES (:org, :id, :type)""")
                .bind("org", ORG).bind("id", conflict).bind("type", "conflict_deleted").execute()))
                .satisfies(e -> assertThat(sqlState(e)).isEqualTo(CHECK_VIOLATION))
                .hasMessageContaining("conflict_event_type");

        long events = superuser.withHandle(h -> h.createQuery("SELECT count(*) FROM conflict_events")
                .mapTo(Long.class).one());
        assertThat(events).isZero();
    }

    @Test
    void everyWordOfEachListIsAccepted() {
        superuser.useHandle(h -> {
            for (String state : List.of("pending", "in_progress", "waiting_budget", "not_needed")) {
                h.execute("UPDATE policy_conflicts SET synthesis_state = ? WHERE id = ?", state, conflict);
            }
            for (String reason : List.of("set_org_id", "load_row", "router_resolve", "synthesizer", "invalid_json",
                    "write_merge", "max_attempts_exceeded", "unknown")) {
                h.execute("UPDATE policy_conflicts SET last_failure_reason = ? WHERE id = ?", reason, conflict);
            }
            for (String action : List.of("tool_call", "data_export", "knowledge_query")) {
                h.execute("UPDATE policy_conflicts SET action = ? WHERE id = ?", action, conflict);
            }
            h.execute("""
                    UPDATE policy_conflicts SET synthesis_state = 'max_attempts_exceeded',
                           failure_marker = 'synthesis_max_attempts_exceeded' WHERE id = ?""", conflict);
            h.execute("UPDATE policy_conflicts SET inbox_status = 'acknowledged' WHERE id = ?", conflict);
            h.execute("UPDATE policy_conflicts SET inbox_status = 'resolved', resolution = 'manual' WHERE id = ?",
                    conflict);
        });

        assertThat(row()).isEqualTo("knowledge_query|max_attempts_exceeded|unknown|synthesis_max_attempts_exceeded"
                + "|resolved|manual");
    }

    @Test
    void theRulesThatTieTwoColumnsTogetherStillHold() {
        // Done without a merge, a marker without its state, resolved without a resolution: each refused.
        for (String set : List.of("synthesis_state = 'done'",
                "failure_marker = 'synthesis_max_attempts_exceeded'",
                "inbox_status = 'resolved'")) {
            assertThatThrownBy(() -> superuser.useHandle(h -> h.execute(
                    "UPDATE policy_conflicts SET " + set + " WHERE id = ?", conflict)))
                    .as(set)
                    .satisfies(e -> assertThat(sqlState(e)).isEqualTo(CHECK_VIOLATION));
        }
    }

    @Test
    void theClaimStillFindsItsRowsThroughThePartialIndexes() {
        String plan = superuser.withHandle(h -> {
            h.execute("SET enable_seqscan = off");
            return String.join("\n", h.createQuery("""
                            EXPLAIN SELECT id FROM policy_conflicts
                            WHERE org_id = '66149ad9-b0fe-4981-b3a0-ea0d94e58b4f' AND synthesis_state = 'pending'
                              AND not_before <= now()
                            ORDER BY not_before""")
                    .mapTo(String.class).list());
        });
        assertThat(plan).contains("policy_conflicts_pending_by_org");
    }

    private String row() {
        return superuser.withHandle(h -> h.createQuery("""
                        SELECT concat_ws('|', action, synthesis_state, last_failure_reason, failure_marker,
                                         inbox_status, resolution)
                        FROM policy_conflicts WHERE id = :id""")
                .bind("id", conflict).mapTo(String.class).one());
    }

    private static String sqlState(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql) {
                return sql.getSQLState();
            }
        }
        return null;
    }
}
