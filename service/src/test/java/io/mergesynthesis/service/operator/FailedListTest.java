package io.mergesynthesis.service.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.core.MarkedConflict;
import io.mergesynthesis.service.testing.TestDatabase;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator's list of failed conflicts across orgs, paged by key: every marked conflict appears on exactly one
 * page, newest mark first, whatever the page size, and many share one time of marking (a bulk marking).
 */
class FailedListTest {

    static final String[] REASONS = {"invalid_json", "synthesizer", "write_merge"};
    static TestDatabase database;
    static List<Row> marked = new ArrayList<>();

    record Row(UUID id, UUID org, String reason, Instant at) {
    }

    @BeforeAll
    static void seed() {
        database = TestDatabase.fresh();
        Jdbi jdbi = database.jdbi();
        Random random = new Random(5);
        UUID[] orgs = {UUID.randomUUID(), UUID.randomUUID(), UUID.randomUUID()};
        Instant base = Instant.parse("2026-11-20T08:00:00Z");
        for (int i = 0; i < 137; i++) {
            UUID org = orgs[random.nextInt(orgs.length)];
            // A few distinct times only, so that many rows tie on the time and the id decides.
            Instant at = base.plusSeconds(60L * random.nextInt(6));
            String reason = REASONS[random.nextInt(REASONS.length)];
            boolean isMarked = random.nextInt(5) > 0;
            UUID id = insert(jdbi, org, i, at, isMarked ? reason : null);
            if (isMarked) {
                marked.add(new Row(id, org, reason, at));
            }
        }
    }

    /** Ties on the time are broken by id in PostgreSQL's order of uuids: their text, not Java's signed compare. */
    @Test
    void everyMarkedConflictIsOnExactlyOnePageNewestFirst() {
        FailedList list = new FailedList(database.transactions());
        for (int size : new int[] {1, 7, 50, 500}) {
            assertThat(walk(list, null, null, size)).as("pages of %d", size).containsExactlyElementsOf(
                    marked.stream().sorted((a, b) -> a.at().equals(b.at()) ? b.id().toString().compareTo(a.id().toString())
                            : b.at().compareTo(a.at())).map(Row::id).toList());
        }
    }

    @Test
    void theFiltersTakeOnlyTheirReasonAndOrg() {
        FailedList list = new FailedList(database.transactions());
        Row some = marked.get(0);
        List<UUID> ofReason = walk(list, some.reason(), null, 9);
        assertThat(new HashSet<>(ofReason)).isEqualTo(ids(r -> r.reason().equals(some.reason())));
        List<UUID> ofOrgAndReason = walk(list, some.reason(), some.org(), 4);
        assertThat(new HashSet<>(ofOrgAndReason)).isEqualTo(ids(r -> r.reason().equals(some.reason())
                && r.org().equals(some.org())));
    }

    private static Set<UUID> ids(java.util.function.Predicate<Row> which) {
        Set<UUID> ids = new HashSet<>();
        marked.stream().filter(which).forEach(r -> ids.add(r.id()));
        return ids;
    }

    private static List<UUID> walk(FailedList list, String reason, UUID org, int size) {
        List<UUID> seen = new ArrayList<>();
        MarkedConflict.Key after = null;
        while (true) {
            FailedList.Page page = list.page(reason, org, after, size);
            assertThat(page.conflicts().size()).isLessThanOrEqualTo(size);
            page.conflicts().forEach(c -> seen.add(c.id()));
            if (!page.more()) {
                return seen;
            }
            after = page.conflicts().get(page.conflicts().size() - 1).key();
        }
    }

    private static UUID insert(Jdbi jdbi, UUID org, int i, Instant at, String reason) {
        UUID id = UUID.randomUUID();
        jdbi.useHandle(h -> h.createUpdate("""
                        INSERT INTO policy_conflicts (id, org_id, dedup_key, action, target, rules, winner_policy_id,
                                                      detected_at, synthesis_state, attempts, last_failure_reason,
                                                      failure_marker, updated_at)
                        VALUES (:id, :org, :key, 'tool_call', :target, '[]'::jsonb, 'pol-1', :at,
                                :state, 3, :reason, :marker, :at)""")
                .bind("id", id).bind("org", org).bind("key", "failed-" + i).bind("target", "tool.t" + i)
                .bind("at", Timestamp.from(at))
                .bind("state", reason == null ? "pending" : "max_attempts_exceeded")
                .bind("reason", reason)
                .bind("marker", reason == null ? null : "synthesis_max_attempts_exceeded")
                .execute());
        return id;
    }
}
