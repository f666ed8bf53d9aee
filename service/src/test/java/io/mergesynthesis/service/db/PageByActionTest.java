package io.mergesynthesis.service.db;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.core.InboxStatus;
import io.mergesynthesis.service.core.StoredConflict;
import io.mergesynthesis.service.core.SynthesisState;
import io.mergesynthesis.service.testing.TestDatabase;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A page filtered by action (schema 20) in an org where that action is rare: the page is the one a plain query
 * of the table gives, for every combination of filters, order and position, and its first page reads a few of
 * the org's conflicts, not the thousands of other actions (counted by the server for the page's own
 * transaction). When a state filter holds fewer conflicts than the action, the state's index leads instead.
 */
class PageByActionTest {

    static final UUID ORG = UUID.fromString("00000000-0000-4000-8000-0000000000c3");
    static final UUID OTHER = UUID.fromString("00000000-0000-4000-8000-0000000000d4");
    static final int CALLS = 6_000;
    static final int LIMIT = 10;

    static TestDatabase database;

    @BeforeAll
    static void conflicts() {
        database = TestDatabase.fresh();
        // 6,000 tool calls, one in two hundred of them a data export instead (older ones only, so the inbox index
        // passes thousands of tool calls before the first); a few not needed, some resolved. Another org holds
        // data exports of its own at the newest end, which no page of ORG may show.
        database.jdbi().useHandle(h -> h.execute("""
                INSERT INTO policy_conflicts (id, org_id, dedup_key, action, target, rules, winner_policy_id,
                                              detected_at, received_at, synthesis_state, inbox_status,
                                              suggested_merge, resolution, resolved_at)
                SELECT gen_random_uuid(), '%s', 'key-' || n,
                       CASE WHEN n %% 200 = 7 AND n > 2000 THEN 'data_export' ELSE 'tool_call' END,
                       'jira.op_' || n %% 13, '[{"policy_id": "pol-1"}]', 'pol-1', now(),
                       timestamptz '2026-11-01' - (n / 2) * interval '1 second',
                       CASE WHEN n %% 997 = 3 THEN 'not_needed' WHEN n %% 5 = 0 THEN 'pending' ELSE 'done' END,
                       CASE WHEN n %% 3 = 0 THEN 'resolved' ELSE 'open' END,
                       CASE WHEN n %% 997 <> 3 AND n %% 5 <> 0 THEN '{}'::jsonb END,
                       CASE WHEN n %% 3 = 0 THEN 'manual' END,
                       CASE WHEN n %% 3 = 0 THEN now() END
                  FROM generate_series(1, %d) AS n""".formatted(ORG, CALLS)));
        database.jdbi().useHandle(h -> h.execute("""
                INSERT INTO policy_conflicts (id, org_id, dedup_key, action, target, rules, winner_policy_id,
                                              detected_at, received_at)
                SELECT gen_random_uuid(), '%s', 'key-' || n, 'data_export', 'jira.op_1', '[]', 'pol-1', now(),
                       timestamptz '2026-11-02' + n * interval '1 second'
                  FROM generate_series(1, 300) AS n""".formatted(OTHER)));
        database.jdbi().useHandle(h -> h.execute("ANALYZE"));
    }

    @Test
    void everyFilteredPageIsThePageAPlainQueryGives() {
        Random random = new Random(21);
        int nonEmpty = 0;
        for (String action : new String[] {"data_export", "tool_call", "knowledge_query"}) {
            for (SynthesisState state : new SynthesisState[] {null, SynthesisState.DONE, SynthesisState.PENDING,
                    SynthesisState.NOT_NEEDED}) {
                for (InboxStatus status : new InboxStatus[] {null, InboxStatus.RESOLVED}) {
                    for (boolean newer : new boolean[] {false, true}) {
                        StoredConflict position = null;
                        if (random.nextBoolean()) {
                            List<StoredConflict> some = page(action, state, status, null, newer);
                            position = some.isEmpty() ? null : some.get(some.size() / 2);
                        }
                        List<UUID> read = ids(page(action, state, status, position, newer));
                        List<UUID> model = model(action, state, status, position, newer);
                        assertThat(read).as("%s %s %s %s from %s", action, state, status,
                                newer ? "newer" : "older", position == null ? null : position.id()).isEqualTo(model);
                        nonEmpty += model.isEmpty() ? 0 : 1;
                    }
                }
            }
        }
        assertThat(nonEmpty).as("most combinations find conflicts").isGreaterThan(20);
    }

    @Test
    void aRareActionsFirstPageReadsItsOwnConflictsNotTheOrgsOthers() {
        long fetched = fetchedWhileReading(h -> ConflictStore.page(h, ORG, request("data_export", null, null)));
        assertThat(fetched).as("conflicts fetched for a page of %d data exports", LIMIT).isLessThanOrEqualTo(2L * LIMIT);

        // The same page read down the inbox index, as before schema 20, passes thousands of tool calls first: what
        // the count above would show if the action were not read from its own range.
        String inboxIndex = SqlFiles.of(ConflictStore.class, "page_older");
        long before = fetchedWhileReading(h -> {
            h.createQuery(SqlFiles.of(ConflictStore.class, "plan_each_page")).mapTo(String.class).one();
            return h.createQuery(inboxIndex).bind("org", ORG).bind("limit", LIMIT).bind("inbox", (String) null)
                    .bind("unresolvedOnly", false).bind("state", (String) null).bind("action", "data_export")
                    .bind("prefix", (String) null).mapTo(UUID.class).list();
        });
        assertThat(before).isGreaterThan(1_000L);
    }

    @Test
    void aStateFilterThatHoldsFewerConflictsThanTheActionLeadsThePage() {
        long fetched = fetchedWhileReading(h -> ConflictStore.page(h, ORG,
                request("tool_call", SynthesisState.NOT_NEEDED, null)));
        // Seven conflicts are not needed: the state's own index holds them, and reading them is the page.
        assertThat(fetched).isLessThanOrEqualTo(2L * LIMIT);
        assertThat(page("tool_call", SynthesisState.NOT_NEEDED, null, null, false)).hasSize(7);
    }

    private static long fetchedWhileReading(org.jdbi.v3.core.HandleCallback<?, RuntimeException> read) {
        return database.transactions().inOrg(ORG, h -> {
            read.withHandle(h);
            // This transaction's own reads of the conflicts' heap, by any index or by a scan.
            return h.createQuery("""
                            SELECT coalesce(sum(idx_tup_fetch), 0) + coalesce(sum(seq_tup_read), 0)
                              FROM pg_stat_xact_user_tables WHERE relname = 'policy_conflicts'""")
                    .mapTo(Long.class).one();
        });
    }

    private static ConflictStore.PageRequest request(String action, SynthesisState state, InboxStatus status) {
        return new ConflictStore.PageRequest(status, state, action, null, null, null, false, LIMIT);
    }

    private static List<StoredConflict> page(String action, SynthesisState state, InboxStatus status,
                                             StoredConflict position, boolean newer) {
        ConflictStore.PageRequest request = new ConflictStore.PageRequest(status, state, action, null,
                position == null ? null : position.receivedAt(), position == null ? null : position.id(), newer,
                LIMIT);
        return database.transactions().inOrg(ORG, h -> ConflictStore.page(h, ORG, request));
    }

    /** The page by a plain query of the table, with no index in mind. */
    private static List<UUID> model(String action, SynthesisState state, InboxStatus status, StoredConflict position,
                                    boolean newer) {
        String direction = newer ? "ASC" : "DESC";
        String beyond = newer ? ">" : "<";
        return database.jdbi().withHandle(h -> h.createQuery("""
                        SELECT id FROM policy_conflicts
                         WHERE org_id = :org AND action = :action
                           AND (CAST(:state AS text) IS NULL OR synthesis_state = :state)
                           AND (CAST(:status AS text) IS NULL OR inbox_status = :status)
                           AND (CAST(:at AS timestamptz) IS NULL OR (received_at, id) %s (:at, CAST(:id AS uuid)))
                         ORDER BY received_at %s, id %s LIMIT :limit""".formatted(beyond, direction, direction))
                .bind("org", ORG).bind("action", action)
                .bind("state", state == null ? null : state.wireName())
                .bind("status", status == null ? null : status.wireName())
                .bind("at", position == null ? null : Timestamp.from(position.receivedAt()))
                .bind("id", position == null ? null : position.id())
                .bind("limit", LIMIT)
                .mapTo(UUID.class).list());
    }

    private static List<UUID> ids(List<StoredConflict> conflicts) {
        return conflicts.stream().map(StoredConflict::id).toList();
    }
}
