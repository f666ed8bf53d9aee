package io.mergesynthesis.service.db;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.core.StoredConflict;
import io.mergesynthesis.service.testing.Explain;
import io.mergesynthesis.service.testing.TestDatabase;
import io.mergesynthesis.testsupport.Wait;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.Random;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.PreparedBatch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A search read through the search key index (schema 18) gives the very page the inbox index gives, for every
 * prefix (wildcards and the escape among them), order, direction and filter, within the caller's org alone; and a
 * search few conflicts match is planned as a range of that index.
 */
class SearchByKeyTest {

    static final UUID ORG = UUID.fromString("00000000-0000-4000-8000-0000000000a1");
    static final UUID OTHER = UUID.fromString("00000000-0000-4000-8000-0000000000b2");
    static final String[] TARGETS = {"jira.create_issue", "jira.delete", "github.push", "a%b.x", "a_b.x", "a\\b.x",
            "*", "slack.post", "github.delete_repo", "GitHub.Admin"};
    static final String[] PREFIXES = {"jira.", "jira.c", "j", "github", "a%", "a_", "a\\", "a", "*", "pol-3",
            "pol-", "key-1", "key-17", "nothing", "JIRA", "slack.post", "sl", "delete_repo", "GITHUB", "ELETE_R",
            "ub.", "_b", "%b.", "b.x", "OL-1", "Ey-", "post", "git", "Gi", "ol", "e_r", "\\b",
            "HUB.DELETE_REP", "post.nothing", "ack.Post_Mes"};

    static TestDatabase database;
    static final List<Row> ROWS = new ArrayList<>();

    record Row(UUID id, String key, String target, List<String> policies, String state, Instant receivedAt) {
    }

    @BeforeAll
    static void conflicts() {
        database = TestDatabase.fresh();
        Random random = new Random(31);
        Instant start = Instant.parse("2026-11-01T00:00:00Z");
        // ORG holds more than 5,000 keys, so that a search of several words is looked up by its rarest word
        // (schema 25); OTHER, a few hundred conflicts, has its keys read whole.
        List<Row> others = new ArrayList<>();
        for (int i = 0; i < 1_500; i++) {
            String target = TARGETS[random.nextInt(TARGETS.length)];
            List<String> policies = List.of("pol-" + random.nextInt(40), "pol-" + random.nextInt(40));
            String state = random.nextInt(4) == 0 ? "done" : "pending";
            // Some share a moment, so the keyset's second column decides their order.
            Row row = new Row(UUID.randomUUID(), "key-" + i, target, policies, state,
                    start.plusSeconds(random.nextInt(200)));
            ROWS.add(row);
            if (i < 300) {
                others.add(new Row(UUID.randomUUID(), row.key(), target, policies, state, row.receivedAt()));
            }
        }
        // One transaction and one batch for all of them: a connection of their own each made loading the slowest
        // part of the class.
        database.jdbi().useTransaction(h -> {
            // Committed durably: the test server commits asynchronously, and VACUUM marks no page all-visible
            // (which an index-only scan needs) while the commit of its rows may not be on disk yet.
            h.execute("SET LOCAL synchronous_commit = on");
            PreparedBatch batch = h.prepareBatch(INSERT);
            ROWS.forEach(row -> bind(batch, ORG, row));
            others.forEach(row -> bind(batch, OTHER, row));
            batch.execute();
        });
    }

    private static final String INSERT = """
                        INSERT INTO policy_conflicts (id, org_id, dedup_key, action, target, rules, winner_policy_id,
                                                      detected_at, received_at, synthesis_state, suggested_merge)
                        VALUES (:id, :org, :key, 'tool_call', :target,
                                jsonb_build_array(jsonb_build_object('policy_id', CAST(:p1 AS text)),
                                                  jsonb_build_object('policy_id', CAST(:p2 AS text))),
                                :p1, now(), :at, :state, CASE WHEN :state = 'done' THEN '{}'::jsonb END)""";

    private static void bind(PreparedBatch batch, UUID org, Row row) {
        batch.bind("id", row.id()).bind("org", org).bind("key", row.key()).bind("target", row.target())
                .bind("p1", row.policies().get(0)).bind("p2", row.policies().get(1))
                .bind("at", java.sql.Timestamp.from(row.receivedAt())).bind("state", row.state())
                .add();
    }

    private static List<UUID> page(String prefix, String state, Row position, boolean newer, int fewMatches) {
        ConflictStore.PageRequest request = new ConflictStore.PageRequest(null,
                state == null ? null : io.mergesynthesis.service.core.SynthesisState.ofStored(state), null, prefix,
                position == null ? null : position.receivedAt(), position == null ? null : position.id(), newer, 7);
        return database.transactions().inOrg(ORG, handle -> ConflictStore.page(handle, ORG, request, fewMatches))
                .stream().map(StoredConflict::id).toList();
    }

    private static List<UUID> expected(String prefix, String state, Row position, boolean newer) {
        // As PostgreSQL orders uuids: byte by byte, unsigned, which is the order of their hex text.
        Comparator<Row> order = Comparator.comparing(Row::receivedAt).thenComparing(r -> r.id().toString());
        return ROWS.stream()
                .filter(r -> matches(r.target(), prefix) || matches(r.key(), prefix)
                        || r.policies().stream().anyMatch(p -> matches(p, prefix)))
                .filter(r -> state == null || r.state().equals(state))
                .filter(r -> position == null || (newer ? order.compare(r, position) > 0 : order.compare(r, position) < 0))
                .sorted(newer ? order : order.reversed())
                .limit(7).map(Row::id).toList();
    }

    /** The rule of a search: any case; anywhere from three characters on, at the start below that. */
    private static boolean matches(String text, String search) {
        String haystack = text.toLowerCase(Locale.ROOT);
        String needle = search.toLowerCase(Locale.ROOT);
        return needle.length() < 3 ? haystack.startsWith(needle) : haystack.contains(needle);
    }

    @Test
    void bothWaysGiveTheSamePageAsTheModelForEveryPrefix() {
        Random random = new Random(5);
        int nonEmpty = 0;
        for (String prefix : PREFIXES) {
            for (String state : new String[] {null, "done"}) {
                for (boolean newer : new boolean[] {false, true}) {
                    Row position = random.nextBoolean() ? null : ROWS.get(random.nextInt(ROWS.size()));
                    List<UUID> model = expected(prefix, state, position, newer);
                    String what = prefix + " " + state + " " + (newer ? "newer" : "older") + " from " + position;
                    assertThat(page(prefix, state, position, newer, Integer.MAX_VALUE)).as("by key: " + what)
                            .isEqualTo(model);
                    assertThat(page(prefix, state, position, newer, 0)).as("down the inbox: " + what)
                            .isEqualTo(model);
                    if (!model.isEmpty()) {
                        nonEmpty++;
                    }
                }
            }
        }
        assertThat(nonEmpty).isGreaterThan(PREFIXES.length);
    }

    @Test
    void aSearchReadsTheTrigramOrThePrefixIndexOfItsOrgsKeys() {
        // Vacuumed as autovacuum leaves a table whose rows are never updated: its pages all-visible, so that an
        // index-only scan reads no row from the table. A transaction still open elsewhere on the server may keep
        // the newest rows from being all-visible to the first vacuum: vacuumed again until the map says they are.
        Wait.until("every page of the search keys all-visible", Duration.ofSeconds(30),
                () -> database.jdbi().withHandle(h -> {
                    h.execute("VACUUM ANALYZE conflict_search_keys");
                    return h.createQuery("SELECT relallvisible >= relpages FROM pg_class "
                            + "WHERE oid = 'conflict_search_keys'::regclass").mapTo(Boolean.class).one();
                }));
        // conflicts_matching_search() reads the keys as the schema's owner (under row-level security LIKE could not
        // be an index condition); its plans are those of its statements, shown here with the org scope set as
        // the service sets it.
        String body = database.jdbi().withHandle(h -> h.createQuery(
                "SELECT prosrc FROM pg_proc WHERE proname = 'conflicts_matching_search'").mapTo(String.class).one());
        Matcher statements = Pattern.compile("RETURN QUERY (SELECT .*?LIMIT most);", Pattern.DOTALL).matcher(body);
        List<String> plans = new ArrayList<>();
        // Its first three statements: a short search, any search of an org of few keys, a search of one word.
        for (String search : new String[] {"ke", "ELETE_r", "ELETE_r"}) {
            assertThat(statements.find()).isTrue();
            String sql = statements.group(1).replaceAll("\\bsearch\\b", ":search").replaceAll("\\bmost\\b", ":most");
            try (Handle h = database.jdbi().open()) {
                h.begin();
                // The statement for an org of few keys, as OTHER is; on ORG, most of this small table, a scan of
                // it all is cheaper.
                ScopedTransactions.switchOrg(h, plans.size() == 1 ? OTHER : ORG);
                h.execute("SET LOCAL ROLE NONE");
                if (plans.size() == 2) {
                    // On a table this small the org's range of the prefix index is as cheap as anything; on a big
                    // tenant, whose keys are most of the table, it narrows nothing, and a scan of a few pages is
                    // not on offer. With both out of the way, the trigram index must serve the statement.
                    h.execute("DROP INDEX conflict_search_keys_prefix");
                    h.execute("SET LOCAL enable_seqscan = off");
                }
                plans.add(Explain.plan(h, sql, name -> switch (name) {
                    case "search" -> search;
                    case "most" -> 2000;
                    default -> null;
                }));
                h.rollback();
            }
        }
        assertThat(plans.get(0)).as("under three characters, from the index alone (schema 24)")
                .contains("Index Only Scan using conflict_search_keys_prefix")
                .containsPattern("Index Cond: .*lower\\(search_key\\)\\)? ~>=~ 'ke'")
                .doesNotContain("Seq Scan on conflict_search_keys");
        assertThat(plans.get(1)).as("an org of few keys, from the prefix index alone (schema 25)")
                .contains("Index Only Scan using conflict_search_keys_prefix")
                .doesNotContain("conflict_search_keys_trigrams");
        assertThat(plans.get(2)).as("three characters or more").contains("conflict_search_keys_trigrams")
                .containsPattern("Index Cond: .*lower\\(search_key\\) ~~ '%elete")
                .doesNotContain("Seq Scan on conflict_search_keys");
    }

    @Test
    void aSearchFindsNothingWithoutAnOrgInScope() {
        long found = database.transactions().asTenant(h -> h.createQuery(
                "SELECT count(*) FROM conflicts_matching_search('jira', NULL)").mapTo(Long.class).one());
        assertThat(found).isZero();
    }
}
