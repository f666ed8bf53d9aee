package io.mergesynthesis.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.mergesynthesis.service.worker.WorkerFixture.Replica;
import io.mergesynthesis.service.worker.attempt.SuggestedMergeJson;
import io.mergesynthesis.synthesis.Action;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.PolicyRule;
import io.mergesynthesis.synthesis.Router;
import io.mergesynthesis.synthesis.StubRouter;
import io.mergesynthesis.testsupport.Wait;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Three replicas of four workers each over thousands of conflicts: every conflict is synthesized exactly once. */
class ExactlyOnceTest {

    private static final int CONFLICTS = 5_000;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void threeReplicasWriteEveryMergeExactlyOnce() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            fixture.insertConflicts(CONFLICTS, "jira.create_issue");
            CountingSynthesizer counting = new CountingSynthesizer(WorkerFixture.stub());
            // One replica listens for NOTIFY, two only poll: both ways must coexist.
            List<Replica> replicas = List.of(
                    fixture.replica(WorkerFixture.settings("replica-a").listen(true), counting),
                    fixture.replica(WorkerFixture.settings("replica-b"), counting),
                    fixture.replica(WorkerFixture.settings("replica-c"), counting));
            replicas.forEach(replica -> replica.pool().start());

            Wait.until("every conflict done", Duration.ofSeconds(100),
                    () -> fixture.count("synthesis_state = 'done'") == CONFLICTS);

            assertThat(counting.total.get()).isEqualTo(CONFLICTS);
            assertThat(counting.calls).hasSize(CONFLICTS);
            assertThat(counting.calls.values()).allSatisfy(calls -> assertThat(calls.get()).isEqualTo(1));
            assertThat(fixture.count("suggested_merge IS NOT NULL AND synthesized_at IS NOT NULL "
                    + "AND lease_owner IS NULL AND attempts = 1 AND last_failure_reason IS NULL")).isEqualTo(CONFLICTS);
            assertThat(fixture.count("suggested_merge->>'conflict_id' <> id::text")).isZero();
            assertThat(fixture.events("merge_synthesized")).isEqualTo(CONFLICTS);
            long distinct = fixture.admin.withHandle(handle -> handle.createQuery(
                    "SELECT count(DISTINCT conflict_id) FROM conflict_events WHERE event_type = 'merge_synthesized'")
                    .mapTo(Long.class).one());
            assertThat(distinct).isEqualTo(CONFLICTS);

            double successes = 0;
            for (Replica replica : replicas) {
                successes += replica.attempts(Outcome.SUCCESS);
                for (Outcome other : List.of(Outcome.TRANSIENT_FAILURE, Outcome.PERMANENT_FAILURE, Outcome.SKIPPED)) {
                    assertThat(replica.attempts(other)).as("%s on %s", other, replica.pool().owner()).isZero();
                }
                for (FailureReason reason : FailureReason.values()) {
                    assertThat(replica.failures(reason)).as("%s on %s", reason, replica.pool().owner()).isZero();
                }
                assertThat(replica.pool().problem()).isEmpty();
            }
            assertThat(successes).isEqualTo(CONFLICTS);
        }
    }

    @Test
    void theStoredMergeIsTheCanonicalForm() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID id = fixture.insertConflict("jira.create_issue");
            Replica replica = fixture.replica(WorkerFixture.settings("canonical"), WorkerFixture.stub());
            replica.pool().start();
            Wait.until("the conflict done", Duration.ofSeconds(20),
                    () -> "done".equals(fixture.column(id, "synthesis_state")));

            ObjectMapper mapper = new ObjectMapper();
            List<PolicyRule> rules = mapper.readValue(fixture.column(id, "rules"),
                    mapper.getTypeFactory().constructCollectionType(List.class, PolicyRule.class));
            Instant detectedAt = fixture.admin.withHandle(handle -> handle.createQuery(
                    "SELECT detected_at FROM policy_conflicts WHERE id = :id").bind("id", id).mapTo(Instant.class).one());
            UUID org = UUID.fromString(fixture.column(id, "org_id"));
            ConflictSnapshot snapshot = new ConflictSnapshot(id, org, id.toString(), Action.TOOL_CALL,
                    "jira.create_issue", rules, "p1", detectedAt);
            String canonical = new SuggestedMergeJson().toJson(WorkerFixture.stub().synthesize(snapshot,
                    new StubRouter().resolve(Router.MERGE_SYNTHESIS, org)));

            // jsonb keeps the value, not the layout, so the comparison is between trees.
            assertThat(mapper.readTree(fixture.column(id, "suggested_merge"))).isEqualTo(mapper.readTree(canonical));
        }
    }
}
