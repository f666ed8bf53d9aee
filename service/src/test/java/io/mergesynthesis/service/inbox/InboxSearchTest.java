package io.mergesynthesis.service.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.core.InboxStatus;
import io.mergesynthesis.service.core.StoredConflict;
import io.mergesynthesis.service.core.SynthesisState;
import io.mergesynthesis.service.inbox.InboxReads.Direction;
import io.mergesynthesis.service.inbox.InboxReads.Order;
import io.mergesynthesis.service.testing.Explain;
import io.mergesynthesis.service.testing.TestDatabase;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The inbox's search, filters, order and paging both ways, against a model: for many generated filters, walking the
 * pages onward from the first and then back again lists exactly the conflicts the model says, in order, each once,
 * and never another org's. The first page, whatever it filters, is read through an index, and the unfiltered one
 * down the inbox index in its own order, with no sort.
 */
class InboxSearchTest {

    static final long SEED = 29_2026L;
    static final UUID ORG = UUID.randomUUID();
    static final UUID OTHER = UUID.randomUUID();
    static final String[] FAMILIES = {"github", "git", "jira", "slack", "s3", "kb"};
    static final String[] ACTIONS = {"tool_call", "data_export", "knowledge_query"};
    static final String[] STATES = {"pending", "done", "max_attempts_exceeded", "waiting_budget"};
    static final String[] STATUSES = {"open", "acknowledged"};

    static TestDatabase database;
    static InboxReads reads;
    /** What was stored for ORG, as the model reads it. */
    static final List<Row> ROWS = new ArrayList<>();

    record Row(UUID id, Instant receivedAt, String target, String key, List<String> policies, String action,
               String state, String status) {

        boolean matches(InboxFilter f) {
            return (f.inboxStatus() == null || f.inboxStatus().wireName().equals(status))
                    && (f.synthesisState() == null || f.synthesisState().wireName().equals(state))
                    && (f.action() == null || f.action().equals(action))
                    && (f.prefix() == null || target.startsWith(f.prefix()) || key.startsWith(f.prefix())
                    || policies.stream().anyMatch(p -> p.startsWith(f.prefix())));
        }
    }

    @BeforeAll
    static void conflicts() {
        database = TestDatabase.fresh();
        reads = new InboxReads(database.transactions());
        Random random = new Random(SEED);
        Instant base = Instant.parse("2026-11-01T00:00:00Z");
        // One connection for every row: a connection of its own each made loading them most of the class's setup.
        database.jdbi().useHandle(h -> {
            for (int i = 0; i < 260; i++) {
                // Some share a received_at to the microsecond, so the id breaks the tie.
                Instant at = base.plusSeconds(i / 3 * 60L);
                String family = FAMILIES[random.nextInt(FAMILIES.length)];
                Row row = new Row(UUID.randomUUID(), at, family + ".op_" + random.nextInt(40),
                        "eng-" + i % 7 + "-" + i,
                        List.of("pol-org-" + random.nextInt(12), "pol-mbr-" + random.nextInt(30)),
                        ACTIONS[random.nextInt(ACTIONS.length)], STATES[random.nextInt(STATES.length)],
                        STATUSES[random.nextInt(STATUSES.length)]);
                insert(h, ORG, row);
                ROWS.add(row);
                if (i % 4 == 0) {
                    // Another org's twin: same target, key and policies, which no search of ORG may ever list.
                    insert(h, OTHER, new Row(UUID.randomUUID(), at, row.target(), row.key(), row.policies(),
                            row.action(), row.state(), row.status()));
                }
            }
        });
        // PostgreSQL orders uuids by their bytes, as their text sorts; Java's UUID.compareTo compares signed halves.
        ROWS.sort(Comparator.comparing(Row::receivedAt).thenComparing(r -> r.id().toString()).reversed());
    }

    private static void insert(Handle h, UUID org, Row row) {
        String rules = "[" + String.join(",", row.policies().stream()
                .map(p -> "{\"policy_id\": \"" + p + "\", \"scope\": \"org\", \"effect\": \"deny\", \"target\": \"*\"}")
                .toList()) + "]";
        boolean marked = row.state().equals("max_attempts_exceeded");
        h.createUpdate("""
                        INSERT INTO policy_conflicts (id, org_id, dedup_key, action, target, rules, winner_policy_id,
                                                      detected_at, received_at, synthesis_state, inbox_status,
                                                      suggested_merge, failure_marker, last_failure_reason)
                        VALUES (:id, :org, :key, :action, :target, CAST(:rules AS jsonb), :winner, :at, :at, :state,
                                :status, CASE WHEN :state = 'done' THEN '{}'::jsonb END,
                                CASE WHEN :marked THEN 'synthesis_max_attempts_exceeded' END,
                                CASE WHEN :marked THEN 'synthesizer' END)""")
                .bind("id", row.id()).bind("org", org).bind("key", row.key()).bind("action", row.action())
                .bind("target", row.target()).bind("rules", rules).bind("winner", row.policies().get(0))
                .bind("at", Timestamp.from(row.receivedAt())).bind("state", row.state()).bind("status", row.status())
                .bind("marked", marked).execute();
    }

    @Test
    void walkingOnwardThenBackListsExactlyWhatTheFilterMatchesInEitherOrder() {
        Random random = new Random(SEED + 1);
        int nonEmpty = 0;
        for (int round = 0; round < 40; round++) {
            InboxFilter filter = randomFilter(random);
            Order order = random.nextBoolean() ? Order.NEWEST_FIRST : Order.OLDEST_FIRST;
            int size = 4 + random.nextInt(12);
            List<UUID> expected = new ArrayList<>(ROWS.stream().filter(r -> r.matches(filter)).map(Row::id).toList());
            if (order == Order.OLDEST_FIRST) {
                Collections.reverse(expected);
            }
            nonEmpty += expected.isEmpty() ? 0 : 1;

            List<List<StoredConflict>> pages = new ArrayList<>();
            List<UUID> onward = new ArrayList<>();
            PageOfConflicts page = read(filter, null, Direction.ONWARD, order, size);
            assertThat(page.previous()).as("the first page has nothing before it").isNull();
            while (true) {
                pages.add(page.conflicts());
                page.conflicts().forEach(c -> onward.add(c.id()));
                assertThat(page.conflicts()).allSatisfy(c -> assertThat(c.orgId()).isEqualTo(ORG));
                if (page.next() == null) {
                    break;
                }
                page = read(filter, page.next(), Direction.ONWARD, order, size);
            }
            assertThat(onward).as("pages of %s, %s, %d a page", filter, order, size).isEqualTo(expected);

            // Back from the last page: each page is the one seen on the way, until the start, which shows the first
            // page whole.
            PageCursor back = lastOf(pages).isEmpty() ? null
                    : new PageCursor(lastOf(pages).get(0).receivedAt(), lastOf(pages).get(0).id());
            for (int i = pages.size() - 2; i >= 0 && back != null; i--) {
                PageOfConflicts up = read(filter, back, Direction.BACK, order, size);
                List<UUID> ids = up.conflicts().stream().map(StoredConflict::id).toList();
                if (i == 0 || up.previous() == null) {
                    assertThat(ids).as("the start, for %s, %s", filter, order).isEqualTo(idsOf(pages.get(0)));
                    assertThat(up.previous()).isNull();
                    break;
                }
                assertThat(ids).as("page %d from behind, for %s, %s", i, filter, order).isEqualTo(idsOf(pages.get(i)));
                assertThat(up.next()).as("a page exists onward").isNotNull();
                back = up.previous();
            }
        }
        assertThat(nonEmpty).as("most generated filters match something").isGreaterThan(20);
    }

    @Test
    void theApisPagesAreTheNewestFirstOnes() {
        InboxFilter all = InboxFilter.NONE;
        PageOfConflicts viaApi = reads.page(ORG, all, null, 10);
        assertThat(idsOf(viaApi.conflicts())).isEqualTo(ROWS.stream().limit(10).map(Row::id).toList());
        PageOfConflicts second = reads.page(ORG, all, viaApi.next(), 10);
        assertThat(idsOf(second.conflicts())).isEqualTo(ROWS.stream().skip(10).limit(10).map(Row::id).toList());
    }

    private static PageOfConflicts read(InboxFilter filter, PageCursor position, Direction direction, Order order,
                                        int size) {
        return reads.pageWithCounts(ORG, filter, position, direction, order, size).page();
    }

    @Test
    void theFirstPageIsReadDownTheInboxIndexWhateverItFilters() throws Exception {
        String sql = io.mergesynthesis.service.db.SqlFiles.of(io.mergesynthesis.service.db.ConflictStore.class,
                "page_older");
        Object[][] cases = {
                {null, null, null, null},
                {"open", "done", "tool_call", "git"},
                {null, null, null, "pol-org-1"},
                {null, "waiting_budget", null, null},
                {null, "max_attempts_exceeded", null, null},
                {null, "not_needed", null, null},
                {"resolved", null, null, null}};
        // A table of some size, as the planner would see in use: 20,000 conflicts of forty other orgs.
        database.jdbi().useHandle(h -> h.execute("""
                INSERT INTO policy_conflicts (id, org_id, dedup_key, action, target, rules, winner_policy_id,
                                              detected_at, received_at)
                SELECT gen_random_uuid(), ('00000000-0000-4000-8000-0000000000' || lpad((n % 40)::text, 2, '0'))::uuid,
                       'bulk-' || n, 'tool_call', 'tool.op_' || n, '[]'::jsonb, 'pol-1', now(),
                       now() - n * interval '1 second'
                  FROM generate_series(1, 20000) AS n"""));
        for (Object[] c : cases) {
            String plan = database.jdbi().withHandle(h -> {
                h.execute("ANALYZE policy_conflicts");
                return Explain.plan(h, sql, name -> switch (name) {
                    case "org" -> ORG;
                    case "limit" -> 26;
                    case "inbox" -> c[0];
                    case "state" -> c[1];
                    case "action" -> c[2];
                    case "prefix" -> c[3];
                    default -> null;
                });
            });
            // A narrow filter may be cheaper as the org's rows by another index, then sorted: still no whole-table read.
            assertThat(plan).as("plan for %s", java.util.Arrays.toString(c)).contains("Index").doesNotContain("Seq Scan");
            if (c[0] == null && c[1] == null && c[2] == null && c[3] == null) {
                assertThat(plan).contains("Index Scan using policy_conflicts_inbox").doesNotContain("Sort");
            }
            // A value few conflicts hold is read from an index that holds only conflicts in that value: schema 16's,
            // or for conflicts waiting for budget or marked, the org's own index of those.
            if ("not_needed".equals(c[1])) {
                assertThat(plan).contains("policy_conflicts_by_state_received").doesNotContain("Sort");
            }
            if ("waiting_budget".equals(c[1])) {
                assertThat(plan).containsAnyOf("policy_conflicts_by_state_received", "policy_conflicts_waiting_budget");
            }
            if ("max_attempts_exceeded".equals(c[1])) {
                assertThat(plan).containsAnyOf("policy_conflicts_by_state_received", "policy_conflicts_marked");
            }
            if ("resolved".equals(c[0])) {
                assertThat(plan).contains("policy_conflicts_by_status_received").doesNotContain("Sort");
            }
        }
    }

    @Test
    void aPageAfterAPositionStartsItsIndexScanAtThePositionEvenInAKeptPlan() {
        // A plan the server keeps for a prepared statement does not know the values (forced here, as the server may
        // choose it): the position must still be a condition of the index scan, not a filter on every row from
        // the newest one down to it.
        for (String name : List.of("page_older_after", "page_newer_after", "page_older_after_by_action",
                "page_newer_after_by_action")) {
            String sql = io.mergesynthesis.service.db.SqlFiles.of(io.mergesynthesis.service.db.ConflictStore.class,
                    name);
            var parsed = new org.jdbi.v3.core.statement.ColonPrefixSqlParser().parse(sql, null);
            String values = parsed.getParameters().getParameterNames().stream().map(parameter -> switch (parameter) {
                case "org", "positionConflict" -> "'" + ORG + "'";
                case "limit" -> "26";
                case "positionReceivedAt" -> "'2026-01-01T00:00:00Z'";
                default -> "NULL";
            }).collect(java.util.stream.Collectors.joining(", ", "(", ")"));
            List<String> lines = database.jdbi().inTransaction(h -> {
                h.execute("SET LOCAL plan_cache_mode = force_generic_plan");
                // Whatever the table holds when this runs: the question is whether the index can take the
                // position as a condition, not whether a small table is cheaper to read whole.
                h.execute("SET LOCAL enable_seqscan = off");
                h.execute("SET LOCAL enable_bitmapscan = off");
                h.execute("PREPARE kept_page AS " + numberedPlaceholders(parsed.getSql()));
                try {
                    return h.createQuery("EXPLAIN EXECUTE kept_page" + values).mapTo(String.class).list();
                } finally {
                    h.execute("DEALLOCATE kept_page");
                }
            });
            String plan = String.join("\n", lines);
            assertThat(plan).as("kept plan of %s", name).containsPattern("Index Cond: .*received_at");
        }
    }

    /** JDBC's {@code ?} placeholders as the server's {@code $1, $2, ...}, leaving quoted text alone. */
    private static String numberedPlaceholders(String sql) {
        StringBuilder out = new StringBuilder();
        boolean quoted = false;
        int n = 0;
        for (char c : sql.toCharArray()) {
            if (c == '\'') {
                quoted = !quoted;
            }
            if (c == '?' && !quoted) {
                out.append('$').append(++n);
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    @Test
    void searchTextThatCannotBeStoredOrIsTooLongIsNamed() {
        assertThat(InboxFilter.prefixProblem("a".repeat(InboxFilter.MAX_PREFIX_LENGTH))).isNull();
        assertThat(InboxFilter.prefixProblem("a".repeat(InboxFilter.MAX_PREFIX_LENGTH + 1))).contains("at most 200");
        assertThat(InboxFilter.prefixProblem("a\u0000b")).contains("NUL");
    }

    private static InboxFilter randomFilter(Random random) {
        Row some = ROWS.get(random.nextInt(ROWS.size()));
        String prefix = switch (random.nextInt(5)) {
            case 0 -> null;
            case 1 -> some.target().substring(0, 1 + random.nextInt(some.target().length()));
            case 2 -> some.key().substring(0, 4 + random.nextInt(some.key().length() - 4));
            case 3 -> some.policies().get(random.nextInt(2)).substring(0, 5 + random.nextInt(4));
            default -> "no-such-" + random.nextInt(9);
        };
        return new InboxFilter(
                random.nextInt(3) == 0 ? InboxStatus.fromWireName(STATUSES[random.nextInt(STATUSES.length)]).get() : null,
                random.nextInt(3) == 0 ? SynthesisState.fromWireName(STATES[random.nextInt(STATES.length)]).get() : null,
                random.nextInt(3) == 0 ? ACTIONS[random.nextInt(ACTIONS.length)] : null,
                prefix);
    }

    private static <T> List<T> lastOf(List<List<T>> pages) {
        return pages.get(pages.size() - 1);
    }

    private static List<UUID> idsOf(List<StoredConflict> page) {
        return page.stream().map(StoredConflict::id).toList();
    }
}
