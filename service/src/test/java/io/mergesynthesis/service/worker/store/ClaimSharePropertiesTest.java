package io.mergesynthesis.service.worker.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.db.OneTripBatch;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.worker.WorkerFixture;
import io.mergesynthesis.synthesis.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.stream.LongStream;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The share rule of the claim (ADR 0069), over seeded random cases: orgs of random weights and backlogs, claimed
 * in batches of random sizes and held (nothing finishes here). While every org still has conflicts waiting, after
 * every claim the conflicts each org was given, divided by its weight, differ between any two orgs by no more than
 * one conflict's worth of each; and each org's conflicts are claimed oldest first. A failure names its seed. An org
 * whose route is held is passed over and the claims go to the orgs that can be served; once free, it is served at
 * once, level with the others. A claim takes at most one conflict of a paced route. The share is read from the
 * conflicts alone, so conflicts loaded with the triggers off are claimed like any others.
 */
class ClaimSharePropertiesTest {

    private static final long FIRST_SEED = 6_900L;
    private static final int CASES = 8;
    private static final int CLAIMED_PER_CASE = 80;

    private static WorkerFixture fixture;
    private static ScopedTransactions transactions;

    @BeforeAll
    static void database() {
        fixture = new WorkerFixture();
        transactions = fixture.transactionsOnOwnPool("claims", 2);
    }

    @AfterAll
    static void close() throws Exception {
        fixture.close();
    }

    static LongStream seeds() {
        return LongStream.range(FIRST_SEED, FIRST_SEED + CASES);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void everyWaitingOrgGetsItsWeightedShareOldestFirst(long seed) {
        Random random = new Random(seed);
        emptyTables();
        int orgCount = 2 + random.nextInt(5);
        Map<UUID, Integer> weights = new HashMap<>();
        Map<UUID, List<UUID>> oldestFirst = new HashMap<>();
        for (int o = 0; o < orgCount; o++) {
            UUID org = UUID.randomUUID();
            int weight = 1 + random.nextInt(3);
            weights.put(org, weight);
            if (weight != 1 || random.nextBoolean()) {
                fixture.admin.useHandle(h -> h.createUpdate(
                                "INSERT INTO org_synthesis_settings (org_id, weight) VALUES (:org, :weight)")
                        .bind("org", org).bind("weight", weight).execute());
            }
            // Every backlog outlasts the case; its age and size are random, as is the order orgs report in.
            oldestFirst.put(org, backlog(org, CLAIMED_PER_CASE + random.nextInt(40), random.nextInt(3_600)));
        }

        Map<UUID, Integer> given = new HashMap<>();
        Map<UUID, Set<UUID>> taken = new HashMap<>();
        int claimed = 0;
        while (claimed < CLAIMED_PER_CASE) {
            int limit = 1 + random.nextInt(6);
            List<Lease> leases = transactions.crossTenant(h -> ConflictLeases.claim(h, "claims", limit,
                    Duration.ofSeconds(60), Ticker.SYSTEM));
            assertThat(leases).as("seed %d: a full batch while every org waits", seed).hasSize(limit);
            for (Lease lease : leases) {
                given.merge(lease.orgId(), 1, Integer::sum);
                taken.computeIfAbsent(lease.orgId(), org -> new HashSet<>()).add(lease.conflictId());
            }
            claimed += leases.size();
            taken.forEach((org, ids) -> assertThat(ids).as("seed %d: the org's oldest conflicts", seed)
                    .containsExactlyInAnyOrderElementsOf(oldestFirst.get(org).subList(0, ids.size())));
            double most = 0;
            double least = Double.MAX_VALUE;
            for (UUID org : weights.keySet()) {
                double share = given.getOrDefault(org, 0) / (double) weights.get(org);
                most = Math.max(most, share);
                least = Math.min(least, share);
            }
            assertThat(most - least).as("seed %d: weighted shares %s of weights %s", seed, given, weights)
                    .isLessThanOrEqualTo(2.0);
        }
    }

    @Test
    void anOrgOnAHeldRouteIsPassedOverWithoutEatingTheShareOfTheOthers() {
        emptyTables();
        UUID paused = UUID.randomUUID();
        UUID first = UUID.randomUUID();
        UUID second = UUID.randomUUID();
        onAnthropic(paused);
        // The held org's backlog is the oldest: oldest first, it would be all a claim takes.
        backlog(paused, 100, 3_000);
        backlog(first, 100, 2_000);
        backlog(second, 100, 1_000);

        Map<UUID, Integer> given = new HashMap<>();
        for (int round = 0; round < 10; round++) {
            OneTripBatch batch = OneTripBatch.crossTenant();
            OneTripBatch.Result<List<Lease>> leases = ConflictLeases.claim(batch, "claims", 4,
                    Duration.ofSeconds(60), Ticker.SYSTEM, new ClaimRoutes(",anthropic,", ""));
            batch.run(transactions);
            assertThat(leases.get()).as("round %d: a full batch from the orgs that can be served", round)
                    .hasSize(4);
            leases.get().forEach(lease -> given.merge(lease.orgId(), 1, Integer::sum));
        }
        assertThat(given).containsOnlyKeys(first, second);
        assertThat(given.get(first)).isEqualTo(20);
        assertThat(given.get(second)).isEqualTo(20);

        List<Lease> resumed = transactions.crossTenant(h -> ConflictLeases.claim(h, "claims", 4,
                Duration.ofSeconds(60), Ticker.SYSTEM));
        // It starts level with the others, not behind by what the pause held back: it takes the first place and,
        // its conflicts being the oldest, the tie for the next.
        assertThat(resumed).as("once its route is free, the held org is served at once").hasSize(4)
                .filteredOn(lease -> lease.orgId().equals(paused)).hasSize(2);
    }

    @Test
    void aClaimTakesAtMostOneConflictOfEachPacedRouteAndFillsTheRestFromTheOthers() {
        emptyTables();
        UUID pacedOne = UUID.randomUUID();
        UUID pacedTwo = UUID.randomUUID();
        UUID free = UUID.randomUUID();
        onAnthropic(pacedOne);
        onAnthropic(pacedTwo);
        // The paced orgs' backlogs are the oldest: without the rule a claim would take them first.
        backlog(pacedOne, 50, 3_000);
        backlog(pacedTwo, 50, 2_500);
        backlog(free, 50, 1_000);
        ClaimRoutes anthropicPaced = new ClaimRoutes(ConflictLeases.NO_ROUTE_HELD, ",anthropic,");

        for (int round = 0; round < 5; round++) {
            List<Lease> leases = claim(8, anthropicPaced);
            assertThat(leases).as("round %d: a full batch", round).hasSize(8);
            assertThat(leases).as("round %d: one of the paced route, whichever of its orgs starts first", round)
                    .filteredOn(lease -> !lease.orgId().equals(free)).hasSize(1);
        }
        assertThat(claim(8, new ClaimRoutes(ConflictLeases.NO_ROUTE_HELD, ",*,")))
                .as("the route of orgs without a model of their own paced: one of theirs, the rest of the others")
                .hasSize(8).filteredOn(lease -> lease.orgId().equals(free)).hasSize(1);
        assertThat(claim(8, ClaimRoutes.NONE)).as("no route paced: the paced orgs take their fair share again")
                .filteredOn(lease -> !lease.orgId().equals(free)).hasSizeGreaterThan(1);

        fixture.admin.useHandle(h -> h.createUpdate("DELETE FROM policy_conflicts WHERE org_id = :org")
                .bind("org", free).execute());
        assertThat(claim(8, anthropicPaced)).as("only the paced route has work: one conflict, not a batch")
                .hasSize(1);
    }

    private static List<Lease> claim(int limit, ClaimRoutes routes) {
        OneTripBatch batch = OneTripBatch.crossTenant();
        OneTripBatch.Result<List<Lease>> leases = ConflictLeases.claim(batch, "claims", limit,
                Duration.ofSeconds(60), Ticker.SYSTEM, routes);
        batch.run(transactions);
        return leases.get();
    }

    @Test
    void conflictsLoadedWithTheTriggersOffAreClaimedLikeAnyOthers() {
        fixture.admin.useHandle(h -> h.execute("TRUNCATE policy_conflicts CASCADE"));
        UUID org = UUID.randomUUID();
        fixture.admin.useTransaction(h -> {
            h.execute("SET LOCAL session_replication_role = replica");
            h.createUpdate("""
                    INSERT INTO policy_conflicts
                        (id, org_id, dedup_key, action, target, rules, winner_policy_id, detected_at)
                    SELECT gen_random_uuid(), :org, 'loaded-' || i, 'tool_call', 'jira.read', '[]', 'p1', now()
                    FROM generate_series(1, 3) AS i""").bind("org", org).execute();
        });
        List<Lease> after = transactions.crossTenant(h -> ConflictLeases.claim(h, "claims", 4,
                Duration.ofSeconds(60), Ticker.SYSTEM));
        assertThat(after).hasSize(3);
    }

    /** {@code count} pending conflicts of {@code org}, a millisecond apart from {@code ageSeconds} ago. */
    @Test
    void claimsBesideEachOtherOnOneOrgEachTakeTheNextOldest() {
        fixture.admin.useHandle(h -> h.execute("TRUNCATE policy_conflicts CASCADE"));
        UUID org = UUID.randomUUID();
        List<UUID> oldestFirst = backlog(org, 20, 60);
        // Four claims of one conflict each, every one held open while the next runs, as a pool's workers refill
        // from their stores at the same moment: each passes over the rows the others hold and takes the next.
        List<Handle> open = new ArrayList<>();
        List<UUID> taken = new ArrayList<>();
        try {
            for (int c = 0; c < 4; c++) {
                Handle handle = fixture.admin.open();
                open.add(handle);
                handle.begin();
                List<UUID> got = handle.createQuery(ConflictLeases.CLAIM)
                        .bindMap(ConflictLeases.claimParams("beside-" + c, 1, Duration.ofSeconds(60)))
                        .map((rs, ctx) -> rs.getObject("id", UUID.class))
                        .list();
                assertThat(got).as("claim %d, beside %d held open", c, c).hasSize(1);
                taken.addAll(got);
            }
        } finally {
            open.forEach(handle -> {
                handle.rollback();
                handle.close();
            });
        }
        assertThat(taken).as("the four oldest, in order").containsExactlyElementsOf(oldestFirst.subList(0, 4));
    }

    /** No conflict and no org's settings: each case starts from nothing. */
    private static void emptyTables() {
        fixture.admin.useHandle(h -> h.execute("TRUNCATE policy_conflicts CASCADE"));
        fixture.admin.useHandle(h -> h.execute("DELETE FROM org_synthesis_settings"));
    }

    /** Sets {@code org}'s own model to one of Anthropic's, which puts its conflicts on the route {@code anthropic}. */
    private static void onAnthropic(UUID org) {
        fixture.admin.useHandle(h -> h.createUpdate(
                        "INSERT INTO org_synthesis_settings (org_id, model) VALUES (:org, 'anthropic/claude')")
                .bind("org", org).execute());
    }

    private static List<UUID> backlog(UUID org, int count, int ageSeconds) {
        List<UUID> ids = new ArrayList<>();
        fixture.admin.useHandle(h -> ids.addAll(h.createQuery("""
                        INSERT INTO policy_conflicts
                            (id, org_id, dedup_key, action, target, rules, winner_policy_id, detected_at, not_before)
                        SELECT gen_random_uuid(), :org, 'share-' || i, 'tool_call', 'jira.read', '[]', 'p1', now(),
                               now() - :age * interval '1 second' + i * interval '1 millisecond'
                        FROM generate_series(1, :count) AS i
                        RETURNING id""")
                .bind("org", org).bind("count", count).bind("age", ageSeconds)
                .mapTo(UUID.class).list()));
        return ids;
    }
}
