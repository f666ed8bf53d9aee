package io.mergesynthesis.service.db;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.export.EventExport;
import io.mergesynthesis.service.testing.StreamReader;
import io.mergesynthesis.service.testing.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.flywaydb.core.Flyway;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Migration 15 on a database that already holds rows over several months, as a database of one's own does when
 * it is upgraded: every row is still there, unchanged, in its month's partition; ids carry on; row-level security
 * still keeps each org to its rows; and the SIEM stream reads every event once, in order, across the months.
 */
class MonthlyPartitionsMigrationTest {

    private static final UUID ORG_A = UUID.fromString("aaaaaaaa-0000-4000-8000-00000000000a");
    private static final UUID ORG_B = UUID.fromString("bbbbbbbb-0000-4000-8000-00000000000b");
    private static final List<String> TABLES = List.of("conflict_events", "llm_usage_events",
            "synthesis_attempt_history");

    private static TestDatabase database;
    private static Jdbi superuser;
    /** Per table, a digest of every row as it read before the migration. */
    private static Map<String, String> digestsBefore;
    private static List<Long> streamBefore;
    private static long eventsSequenceBefore;
    private static long historySequenceBefore;

    @BeforeAll
    static void upgradeAPopulatedDatabase() {
        database = TestDatabase.migratedTo("13");
        superuser = database.jdbi();
        superuser.useHandle(MonthlyPartitionsMigrationTest::fillThreeMonths);
        digestsBefore = digests();
        streamBefore = streamOrder(null);
        eventsSequenceBefore = superuser.withHandle(h -> h.createQuery(
                "SELECT last_value FROM conflict_events_id_seq").mapTo(Long.class).one());
        historySequenceBefore = superuser.withHandle(h -> h.createQuery(
                "SELECT last_value FROM synthesis_attempt_history_id_seq").mapTo(Long.class).one());

        Flyway.configure().dataSource(database.url(), database.user(), "").locations("classpath:db/migration")
                .load().migrate();
    }

    /**
     * Three conflicts per org, and over the two months before this one and this one: events written in many
     * transactions, each spreading its events over the months (so stream order and month order cross), calls in
     * the ledger and lines of attempt history.
     */
    private static void fillThreeMonths(Handle handle) {
        for (UUID org : List.of(ORG_A, ORG_B)) {
            handle.createUpdate("""
                            INSERT INTO policy_conflicts (id, org_id, dedup_key, action, target, rules,
                                                          winner_policy_id, detected_at)
                            SELECT gen_random_uuid(), :org, 'k-' || i, 'tool_call', 'jira.*', '[]', 'p1', now()
                            FROM generate_series(1, 3) i""")
                    .bind("org", org).execute();
        }
        for (int tx = 0; tx < 20; tx++) {
            int shift = tx;
            handle.useTransaction(h -> h.createUpdate("""
                            INSERT INTO conflict_events (org_id, conflict_id, event_type, occurred_at, details)
                            SELECT c.org_id, c.id, 'conflict_detected', %s, jsonb_build_object('n', i)
                            FROM generate_series(0, 8) i,
                                 LATERAL (SELECT * FROM policy_conflicts ORDER BY id OFFSET (i + :shift) %% 6 LIMIT 1) c
                            """.formatted(spreadOverThreeMonths("i + :shift")))
                    .bind("shift", shift).execute());
        }
        handle.createUpdate("""
                        INSERT INTO llm_usage_events (id, org_id, conflict_id, attempt, pass, provider, model,
                                                      input_tokens, output_tokens, cost_usd, latency_ms, outcome,
                                                      created_at)
                        SELECT gen_random_uuid(), c.org_id, c.id, 1, 'primary', 'anthropic', 'm', 100 + i, 20, 0.0004,
                               900, 'stored', %s
                        FROM generate_series(0, 59) i,
                             LATERAL (SELECT * FROM policy_conflicts ORDER BY id OFFSET i %% 6 LIMIT 1) c
                        """.formatted(spreadOverThreeMonths("i"))).execute();
        handle.createUpdate("""
                        INSERT INTO synthesis_attempt_history (org_id, conflict_id, attempt, outcome, reason, detail,
                                                               finished_at)
                        SELECT c.org_id, c.id, 1, 'transient_failure', 'synthesizer', 'line ' || i, %s
                        FROM generate_series(0, 59) i,
                             LATERAL (SELECT * FROM policy_conflicts ORDER BY id OFFSET i %% 6 LIMIT 1) c
                        """.formatted(spreadOverThreeMonths("i"))).execute();
    }

    /** A moment in this month or one of the two before it (UTC), by {@code n}: n mod 3 months back. */
    private static String spreadOverThreeMonths(String n) {
        return "date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - ((" + n + ") % 3) * interval "
                + "'1 month' + ((" + n + ") % 20) * interval '1 hour' + interval '1 second'";
    }

    private static Map<String, String> digests() {
        return superuser.withHandle(h -> Map.of(
                "conflict_events", digest(h, "conflict_events"),
                "llm_usage_events", digest(h, "llm_usage_events"),
                "synthesis_attempt_history", digest(h, "synthesis_attempt_history")));
    }

    /**
     * The rows' content, without the columns later schemas added with a default (28: the ledger's lane), which
     * are not what this migration moved.
     */
    private static String digest(Handle handle, String table) {
        return handle.createQuery("SELECT count(*) || ':' || md5(string_agg((to_jsonb(t) - CAST(:later AS text[]))"
                + "::text, '|' ORDER BY t.id::text)) FROM " + table + " t")
                .bind("later", new String[] {"lane"}).mapTo(String.class).one();
    }

    private static List<Long> streamOrder(UUID org) {
        return superuser.withHandle(h -> h.createQuery("""
                        SELECT id FROM conflict_events WHERE (CAST(:org AS uuid) IS NULL OR org_id = :org)
                        ORDER BY tx_id, id""")
                .bind("org", org).mapTo(Long.class).list());
    }

    @Test
    void everyRowIsThereUnchangedInThePartitionOfItsMonth() {
        assertThat(digestsBefore.get("conflict_events")).startsWith("180:");
        assertThat(digests()).isEqualTo(digestsBefore);
        for (String table : TABLES) {
            String kind = superuser.withHandle(h -> h.createQuery(
                    "SELECT relkind::text FROM pg_class WHERE oid = CAST(:t AS regclass)").bind("t", table)
                    .mapTo(String.class).one());
            assertThat(kind).as(table + " is partitioned").isEqualTo("p");
            List<String> holding = superuser.withHandle(h -> h.createQuery(
                    "SELECT DISTINCT tableoid::regclass::text FROM " + table + " ORDER BY 1").mapTo(String.class).list());
            assertThat(holding).as("the partitions holding " + table + "'s rows").hasSize(3)
                    .allMatch(name -> name.matches(table + "_[0-9]{4}_[0-9]{2}"));
            long ahead = superuser.withHandle(h -> h.createQuery("""
                            SELECT count(*) FROM pg_inherits WHERE inhparent = CAST(:t AS regclass)""")
                    .bind("t", table).mapTo(Long.class).one());
            assertThat(ahead).as("three months of rows, three ahead and the default").isEqualTo(7);
        }
    }

    @Test
    void idsCarryOnAfterTheLastOne() {
        long event = superuser.withHandle(h -> h.createQuery("""
                        INSERT INTO conflict_events (org_id, event_type) VALUES (:org, 'org_named') RETURNING id""")
                .bind("org", ORG_A).mapTo(Long.class).one());
        long line = superuser.withHandle(h -> h.createQuery("""
                        INSERT INTO synthesis_attempt_history (org_id, conflict_id, attempt, outcome, reason)
                        SELECT org_id, id, 0, 'requeued', 'requeued' FROM policy_conflicts LIMIT 1 RETURNING id""")
                .mapTo(Long.class).one());
        assertThat(event).isGreaterThan(eventsSequenceBefore);
        assertThat(line).isGreaterThan(historySequenceBefore);
        assertThat(eventsSequenceBefore).isEqualTo(180);
        assertThat(historySequenceBefore).isEqualTo(60);
    }

    @Test
    void theLedgersMonthTotalsCountEachCallOnceAndGoOnCounting() {
        String totals = """
                SELECT string_agg(org_id || ' ' || month || ' ' || calls || ' ' || cost_usd, ', '
                                  ORDER BY org_id, month) FROM %s""";
        String fromLedger = superuser.withHandle(h -> h.createQuery(totals.formatted("""
                (SELECT org_id, ledger_month(created_at) AS month, count(*) AS calls, sum(cost_usd) AS cost_usd
                 FROM llm_usage_events GROUP BY 1, 2) l""")).mapTo(String.class).one());
        String kept = superuser.withHandle(h -> h.createQuery(totals.formatted("org_spend_by_month"))
                .mapTo(String.class).one());
        assertThat(kept).as("the copy added nothing twice").isEqualTo(fromLedger);

        superuser.useHandle(h -> h.createUpdate("""
                        INSERT INTO llm_usage_events (id, org_id, conflict_id, attempt, pass, provider, model,
                                                      input_tokens, output_tokens, cost_usd, latency_ms, outcome)
                        SELECT gen_random_uuid(), org_id, id, 1, 'primary', 'anthropic', 'm', 1, 1, 0.5, 1, 'stored'
                        FROM policy_conflicts WHERE org_id = :org LIMIT 1""").bind("org", ORG_B).execute());
        long calls = superuser.withHandle(h -> h.createQuery("""
                        SELECT calls FROM org_spend_by_month WHERE org_id = :org AND month = ledger_month(now())""")
                .bind("org", ORG_B).mapTo(Long.class).one());
        long ledger = superuser.withHandle(h -> h.createQuery("""
                        SELECT count(*) FROM llm_usage_events WHERE org_id = :org
                        AND ledger_month(created_at) = ledger_month(now())""")
                .bind("org", ORG_B).mapTo(Long.class).one());
        assertThat(calls).as("the trigger is on the partitioned table").isEqualTo(ledger);
    }

    @Test
    void rowLevelSecurityStillKeepsEachOrgToItsRows() {
        ScopedTransactions transactions = database.transactions();
        for (String table : TABLES) {
            Function<UUID, List<UUID>> orgsSeenBy = org -> transactions.inOrg(org, h -> h.createQuery(
                    "SELECT DISTINCT org_id FROM " + table).mapTo(UUID.class).list());
            assertThat(orgsSeenBy.apply(ORG_A)).as(table).containsExactly(ORG_A);
            assertThat(orgsSeenBy.apply(ORG_B)).as(table).containsExactly(ORG_B);
            long unscoped = transactions.asTenant(h -> h.createQuery("SELECT count(*) FROM " + table)
                    .mapTo(Long.class).one());
            assertThat(unscoped).as(table + " with no org").isZero();
        }
    }

    @Test
    void theStreamReadsEveryEventOnceInOrderAcrossTheMonths() {
        EventExport export = new EventExport(database.transactions());
        assertThat(read(new StreamReader(export, null))).isEqualTo(streamBefore);
        assertThat(read(new StreamReader(export, ORG_A))).isEqualTo(streamOrder(ORG_A)).isNotEmpty();
    }

    /** Every event the reader is handed, in small pages, until a page comes back empty. */
    private static List<Long> read(StreamReader reader) {
        List<Long> ids = new ArrayList<>();
        for (List<com.fasterxml.jackson.databind.JsonNode> page = reader.next(7); !page.isEmpty();
                page = reader.next(7)) {
            page.forEach(line -> ids.add(StreamReader.eventId(line)));
        }
        return ids;
    }
}
