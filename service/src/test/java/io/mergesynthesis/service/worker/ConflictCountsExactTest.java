package io.mergesynthesis.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.mergesynthesis.service.auth.Caller;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.core.ConflictReport;
import io.mergesynthesis.service.core.InboxCounts;
import io.mergesynthesis.service.core.InboxStatus;
import io.mergesynthesis.service.core.Resolution;
import io.mergesynthesis.service.core.SynthesisState;
import io.mergesynthesis.service.counts.ConflictCountUpkeep;
import io.mergesynthesis.service.db.ConflictCounts;
import io.mergesynthesis.service.inbox.ConflictInbox;
import io.mergesynthesis.service.inbox.InboxReads;
import io.mergesynthesis.service.ingest.ConflictIntake;
import io.mergesynthesis.synthesis.Action;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.Effect;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.PolicyRule;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.Scope;
import io.mergesynthesis.synthesis.SuggestedMerge;
import io.mergesynthesis.synthesis.SynthesisException;
import io.mergesynthesis.testsupport.Wait;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The per-org counts the schema keeps (docs/adr/0042) are exact at every moment: while conflicts are ingested,
 * claimed, merged, failed, acknowledged and resolved by many transactions at once, and folded and recounted
 * meanwhile, each look compares the kept counts with a count of the conflicts in one snapshot and finds no
 * difference.
 */
class ConflictCountsExactTest {

    private static final int ORGS = 3;
    private static final int BATCHES = 60;
    private static final int PER_BATCH = 10;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void countsStayExactUnderConcurrentIngestWorkersResolutionsAndFolds() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            List<UUID> orgs = new ArrayList<>();
            for (int i = 0; i < ORGS; i++) {
                orgs.add(UUID.randomUUID());
            }
            ConflictIntake intake = new ConflictIntake(fixture.database.transactions(), new ObjectMapper());
            ConflictInbox inbox = new ConflictInbox(fixture.database.transactions(), new ObjectMapper());
            ConflictCountUpkeep upkeep = new ConflictCountUpkeep(fixture.database.transactions());
            // One target in five never gets a merge, so conflicts also end marked after their attempts.
            MergeSynthesizer synthesizer = new FailingForSomeTargets(WorkerFixture.stub());
            List<WorkerFixture.Replica> replicas = List.of(
                    fixture.replica(WorkerFixture.settings("counts-a").listen(true), synthesizer),
                    fixture.replica(WorkerFixture.settings("counts-b"), synthesizer));
            replicas.forEach(replica -> replica.pool().start());

            BlockingQueue<UUID[]> ingested = new LinkedBlockingQueue<>();
            AtomicBoolean ingesting = new AtomicBoolean(true);
            AtomicInteger looks = new AtomicInteger();
            AtomicInteger resolutions = new AtomicInteger();
            List<List<ConflictCounts.Drift>> drifts = new ArrayList<>();
            ExecutorService threads = Executors.newFixedThreadPool(4);
            ScheduledExecutorService upkeepSchedule = Executors.newSingleThreadScheduledExecutor();
            try {
                List<Future<?>> work = new ArrayList<>();
                for (int t = 0; t < 2; t++) {
                    int thread = t;
                    work.add(threads.submit(() -> {
                        for (int b = thread; b < BATCHES; b += 2) {
                            UUID org = orgs.get(b % ORGS);
                            List<ConflictReport> reports = new ArrayList<>();
                            for (int i = 0; i < PER_BATCH; i++) {
                                reports.add(report(org, "batch-" + b + "-" + i, (b * PER_BATCH + i) % 5 == 0));
                            }
                            intake.store(reports).forEach(one -> ingested.add(new UUID[] {one.orgId(), one.id()}));
                        }
                        return null;
                    }));
                }
                work.add(threads.submit(() -> {
                    Random random = new Random(7);
                    while (ingesting.get() || !ingested.isEmpty()) {
                        UUID[] one = ingested.poll(50, TimeUnit.MILLISECONDS);
                        if (one == null) {
                            continue;
                        }
                        Caller admin = new Caller(UUID.randomUUID(), Role.ORG_ADMIN, one[0]);
                        switch (random.nextInt(3)) {
                            case 0 -> inbox.acknowledge(admin, one[1]);
                            case 1 -> inbox.resolve(admin, one[1], Resolution.MANUAL, "decided by hand");
                            default -> {
                                // left open
                            }
                        }
                        resolutions.incrementAndGet();
                    }
                    return null;
                }));
                // Folds, and every twentieth turn a recount, both while conflicts change: a turn every few
                // milliseconds, as the upkeep runs on a schedule of its own beside the traffic.
                AtomicInteger turns = new AtomicInteger();
                ScheduledFuture<?> folding = upkeepSchedule.scheduleWithFixedDelay(() -> {
                    if (turns.incrementAndGet() % 20 == 0) {
                        upkeep.recount();
                    } else {
                        upkeep.fold();
                    }
                }, 0, 5, TimeUnit.MILLISECONDS);
                work.add(threads.submit(() -> {
                    while (ingesting.get()) {
                        List<ConflictCounts.Drift> drift = upkeep.drift();
                        looks.incrementAndGet();
                        if (!drift.isEmpty()) {
                            synchronized (drifts) {
                                drifts.add(drift);
                            }
                        }
                    }
                    return null;
                }));
                work.get(0).get(60, TimeUnit.SECONDS);
                work.get(1).get(60, TimeUnit.SECONDS);
                Wait.until("every conflict merged or marked", Duration.ofSeconds(60),
                        () -> fixture.count("synthesis_state IN ('pending', 'in_progress')") == 0);
                ingesting.set(false);
                for (Future<?> each : work) {
                    each.get(30, TimeUnit.SECONDS);
                }
                if (folding.isDone()) {
                    folding.get(); // a fold or recount that threw ended the schedule: fail with what it threw
                }
                folding.cancel(false);
                assertThat(turns.get()).as("folds and recounts while the conflicts changed").isGreaterThan(20);
            } finally {
                threads.shutdownNow();
                upkeepSchedule.shutdownNow();
                // A scheduled fold still running would make the fold below stand aside (-1) and leave rows.
                assertThat(upkeepSchedule.awaitTermination(30, TimeUnit.SECONDS)).as("the upkeep's schedule ended")
                        .isTrue();
            }

            assertThat(drifts).as("kept counts that differed from the conflicts in one snapshot").isEmpty();
            assertThat(looks.get()).as("looks taken while the conflicts changed").isGreaterThan(3);
            assertThat(resolutions.get()).isEqualTo(BATCHES * PER_BATCH);
            assertThat(fixture.count("synthesis_state = 'max_attempts_exceeded'")).isPositive();
            assertThat(fixture.count("inbox_status = 'resolved'")).isPositive();
            assertThat(upkeep.drift()).isEmpty();

            // Folded, each org's counts are one row per pair it has, and still the same counts.
            InboxReads reads = new InboxReads(fixture.database.transactions());
            Map<UUID, InboxCounts> before = new java.util.HashMap<>();
            orgs.forEach(org -> before.put(org, reads.counts(org)));
            assertThat(upkeep.fold()).as("the last fold ran, nothing else folding").isNotNegative();
            long rows = fixture.admin.withHandle(h -> h.createQuery("SELECT count(*) FROM org_conflict_counts")
                    .mapTo(Long.class).one());
            long pairs = fixture.admin.withHandle(h -> h.createQuery(
                    "SELECT count(*) FROM (SELECT DISTINCT org_id, synthesis_state, inbox_status FROM policy_conflicts) p")
                    .mapTo(Long.class).one());
            assertThat(rows).isEqualTo(pairs);
            for (UUID org : orgs) {
                InboxCounts counts = reads.counts(org);
                assertThat(counts).isEqualTo(before.get(org));
                assertThat(counts).isEqualTo(countedByHand(fixture, org));
                assertThat(counts.total()).isEqualTo((long) BATCHES * PER_BATCH / ORGS);
            }
        }
    }

    @Test
    void aRecountRepairsCountsChangedByHandAndSaysWhere() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            for (int i = 0; i < 5; i++) {
                fixture.insertConflict("jira.create_issue", "org-recount");
            }
            ConflictCountUpkeep upkeep = new ConflictCountUpkeep(fixture.database.transactions());
            assertThat(upkeep.drift()).isEmpty();
            fixture.admin.useHandle(h -> h.execute("""
                    INSERT INTO org_conflict_counts (org_id, into_state, into_status, n)
                    VALUES (md5('org-recount')::uuid, 'done', 'open', 3)"""));

            UUID org = fixture.admin.withHandle(h -> h.createQuery("SELECT md5('org-recount')::uuid")
                    .mapTo(UUID.class).one());
            assertThat(upkeep.drift()).containsExactly(
                    new ConflictCounts.Drift(org, SynthesisState.DONE, InboxStatus.OPEN, 3, 0));
            assertThat(upkeep.recount()).isEqualTo(1);
            assertThat(upkeep.drift()).isEmpty();
        }
    }

    @Test
    void aConflictInProgressIsCountedSoThoughItsClaimWritesNoCount() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID first = fixture.insertConflict("jira.create_issue", "org-working");
            fixture.insertConflict("jira.create_issue", "org-working");
            fixture.insertConflict("jira.create_issue", "org-working");
            UUID org = UUID.fromString(fixture.column(first, "org_id"));
            long rowsBefore = countRows(fixture);
            fixture.admin.useHandle(h -> h.createUpdate("""
                    UPDATE policy_conflicts SET synthesis_state = 'in_progress', lease_owner = 'by-hand',
                           lease_expires_at = now() + interval '1 minute', attempts = 1 WHERE id = :id""")
                    .bind("id", first).execute());
            assertThat(countRows(fixture)).as("count rows written by a claim").isEqualTo(rowsBefore);

            InboxCounts counts = new InboxReads(fixture.database.transactions()).counts(org);
            assertThat(counts).isEqualTo(countedByHand(fixture, org));
            assertThat(counts.bySynthesisState().get(SynthesisState.IN_PROGRESS)).isEqualTo(1);
            assertThat(counts.bySynthesisState().get(SynthesisState.PENDING)).isEqualTo(2);
            var fleet = new io.mergesynthesis.service.operator.Fleet(fixture.database.transactions())
                    .overview(Instant.now(), new io.mergesynthesis.service.core.FleetOverview.OrgPage("", 0, 5,
                            io.mergesynthesis.service.core.FleetOverview.OrgOrder.SPEND));
            assertThat(fleet.byState().get(SynthesisState.IN_PROGRESS)).isEqualTo(1);
            assertThat(fleet.byState().get(SynthesisState.PENDING)).isEqualTo(2);
            assertThat(new ConflictCountUpkeep(fixture.database.transactions()).drift()).isEmpty();
        }
    }

    private static long countRows(WorkerFixture fixture) {
        return fixture.admin.withHandle(h -> h.createQuery("SELECT count(*) FROM org_conflict_counts")
                .mapTo(Long.class).one());
    }

    private static InboxCounts countedByHand(WorkerFixture fixture, UUID org) {
        Map<SynthesisState, Long> states = new EnumMap<>(SynthesisState.class);
        Map<InboxStatus, Long> statuses = new EnumMap<>(InboxStatus.class);
        for (SynthesisState state : SynthesisState.values()) {
            states.put(state, 0L);
        }
        for (InboxStatus status : InboxStatus.values()) {
            statuses.put(status, 0L);
        }
        long[] total = {0};
        fixture.admin.useHandle((Handle h) -> h.createQuery("""
                        SELECT synthesis_state, inbox_status, count(*) AS n FROM policy_conflicts
                         WHERE org_id = :org GROUP BY 1, 2""")
                .bind("org", org)
                .map((rs, ctx) -> {
                    long n = rs.getLong("n");
                    states.merge(SynthesisState.ofStored(rs.getString("synthesis_state")), n, Long::sum);
                    statuses.merge(InboxStatus.ofStored(rs.getString("inbox_status")), n, Long::sum);
                    total[0] += n;
                    return n;
                }).list());
        return new InboxCounts(states, statuses, total[0]);
    }

    private static ConflictReport report(UUID org, String key, boolean failing) {
        String target = (failing ? "never" : "jira") + ".create_issue";
        String family = (failing ? "never" : "jira") + ".*";
        return new ConflictReport(org, key, Action.TOOL_CALL, target, List.of(
                new PolicyRule("p1", Scope.ORG, org.toString(), Effect.DENY, family),
                new PolicyRule("p2", Scope.MEMBER, "m1", Effect.ALLOW, target)), "p1", Instant.now());
    }

    /** The stub's merge, except for targets under {@code never.}, which fail every attempt. */
    private record FailingForSomeTargets(MergeSynthesizer stub) implements MergeSynthesizer {
        @Override
        public String name() {
            return "failing-for-some";
        }

        @Override
        public SuggestedMerge synthesize(ConflictSnapshot conflict, ResolvedModel model)
                throws SynthesisException, InterruptedException {
            if (conflict.target().startsWith("never.")) {
                throw new SynthesisException("this target never gets a merge");
            }
            return stub.synthesize(conflict, model);
        }
    }
}
