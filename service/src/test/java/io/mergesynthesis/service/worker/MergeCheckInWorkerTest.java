package io.mergesynthesis.service.worker;

import static io.mergesynthesis.service.worker.PayingSynthesizer.call;
import static io.mergesynthesis.service.worker.PayingSynthesizer.paid;
import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.worker.WorkerFixture.Replica;
import io.mergesynthesis.synthesis.Effect;
import io.mergesynthesis.synthesis.ProviderCall.Disposition;
import io.mergesynthesis.synthesis.ProviderCall.Pass;
import io.mergesynthesis.synthesis.SuggestedMerge;
import io.mergesynthesis.synthesis.SuggestedMerge.MergedRule;
import io.mergesynthesis.testsupport.Wait;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The worker checks every synthesizer's merge before it stores it, a third party's as much as its own: a merge
 * that passes the schema but turns the winner round is never stored, fails the attempt as {@code invalid_json}
 * with the check's findings in the history, and is counted by finding code; the call that paid for it is on
 * record as refused.
 */
class MergeCheckInWorkerTest {

    /** The stub's merge with the winner's deny turned into an allow, in the result and the merged rule. */
    private static SuggestedMerge turnedRound(SuggestedMerge m) {
        MergedRule r = m.mergedRule();
        return new SuggestedMerge(m.schemaVersion(), m.conflictId(), m.winner(), m.losers(), Effect.ALLOW,
                new MergedRule(r.scope(), r.scopeId(), Effect.ALLOW, r.target(), r.basedOnPolicyId()),
                m.loserActions(), m.rationale(), m.confidence(), m.producedBy(), m.generatedAt());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aMergeTheCheckRefusesIsNotStoredAndItsFindingsAreInTheHistory() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID id = fixture.insertConflict("jira.create_issue");
            PayingSynthesizer synthesizer = new PayingSynthesizer(merge -> paid(turnedRound(merge),
                    call(Pass.PRIMARY, "small", 100, 20, "0.000400", Disposition.ANSWER)));
            Replica replica = fixture.replica(WorkerFixture.settings("checked").baseBackoff(Duration.ofMinutes(1)),
                    synthesizer);
            replica.pool().start();

            Wait.until("the failed attempt recorded", Duration.ofSeconds(20),
                    () -> fixture.column(id, "last_failure_reason") != null);
            assertThat(fixture.column(id, "last_failure_reason")).isEqualTo("invalid_json");
            assertThat(fixture.column(id, "synthesis_state")).isEqualTo("pending");
            assertThat(fixture.column(id, "suggested_merge")).isNull();
            assertThat(fixture.events("merge_synthesized")).isZero();
            assertThat(replica.failures(FailureReason.INVALID_JSON)).isEqualTo(1);
            assertThat(replica.attempts(Outcome.TRANSIENT_FAILURE)).isEqualTo(1);

            List<String> details = fixture.admin.withHandle(h -> h.createQuery(
                    "SELECT detail FROM synthesis_attempt_history WHERE conflict_id = :id").bind("id", id)
                    .mapTo(String.class).list());
            assertThat(details).singleElement().asString()
                    .startsWith("the merge check refused the merge of 'stub' [resolved_effect_changed,"
                            + " merged_effect_changed]: resolved_effect_changed: ")
                    .contains("p1");
            assertThat(refusals(replica, "resolved_effect_changed")).isEqualTo(1.0);
            assertThat(refusals(replica, "merged_effect_changed")).isEqualTo(1.0);
            assertThat(refusals(replica, "merged_target_widened")).isZero();
            List<String> outcomes = fixture.admin.withHandle(h -> h.createQuery(
                    "SELECT outcome FROM llm_usage_events WHERE conflict_id = :id").bind("id", id)
                    .mapTo(String.class).list());
            assertThat(outcomes).containsExactly("refused");
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theStubsMergePassesAndIsStored() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID id = fixture.insertConflict("jira.create_issue");
            Replica replica = fixture.replica(WorkerFixture.settings("checked"), WorkerFixture.stub());
            replica.pool().start();

            Wait.until("the merge stored", Duration.ofSeconds(20),
                    () -> "done".equals(fixture.column(id, "synthesis_state")));
            assertThat(replica.failures(FailureReason.INVALID_JSON)).isZero();
            assertThat(refusals(replica, "resolved_effect_changed")).isZero();
        }
    }

    private static double refusals(Replica replica, String code) {
        return replica.registry().getSampleValue("merge_check_refusals_total", new String[] {"code"},
                new String[] {code});
    }
}
