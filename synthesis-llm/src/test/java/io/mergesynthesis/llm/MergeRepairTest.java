package io.mergesynthesis.llm;

import static io.mergesynthesis.llm.Fixtures.conflict;
import static io.mergesynthesis.llm.Fixtures.conflictWithAStricterLoser;
import static io.mergesynthesis.llm.Fixtures.escalating;
import static io.mergesynthesis.llm.Fixtures.model;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.groups.Tuple.tuple;

import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.Behaviour.Scripted;
import io.mergesynthesis.standin.Failure;
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.standin.UnsafeMerge;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.InvalidAnswerException;
import io.mergesynthesis.synthesis.MergeCheck;
import io.mergesynthesis.synthesis.MergeFinding.Code;
import io.mergesynthesis.synthesis.ProviderCall;
import io.mergesynthesis.synthesis.ProviderCall.Disposition;
import io.mergesynthesis.synthesis.ProviderCall.Pass;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.Synthesis;
import io.mergesynthesis.synthesis.Ticker;
import io.prometheus.client.CollectorRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every merge a model answers goes through the merge check before the synthesizer returns it: a refused answer
 * is repaired by a second pass told why, within the attempt, or the attempt fails as an invalid answer carrying
 * every paid call. Against the stand-in's unsafe answers over loopback HTTP.
 */
class MergeRepairTest {

    private static final ResolvedModel ESCALATING = escalating("anthropic", "test-model", "anthropic", "test-model-large");

    private StandInProvider standIn;
    private final CollectorRegistry registry = new CollectorRegistry();

    @BeforeEach
    void start() throws Exception {
        standIn = StandInProvider.start(new Behaviour().expectedKey(Fixtures.KEY).usage(1000, 200, 0, 0));
    }

    @AfterEach
    void stop() {
        standIn.close();
    }

    private LlmSynthesizer synthesizer() {
        return new LlmSynthesizer(Fixtures.settings(standIn.anthropicBaseUrl(), standIn.openAiBaseUrl(),
                AnswerMode.TOOL), new TestClock(), Ticker.SYSTEM, registry);
    }

    private double refusals(Code code) {
        return registry.getSampleValue("merge_check_refusals_total", new String[] {"code"},
                new String[] {code.wireName()});
    }

    @Test
    void aRefusedPrimaryAnswerIsRepairedByTheEscalationModelWithinTheAttempt() throws Exception {
        // Confident, and wrong: confidence does not let an answer past the check.
        standIn.behaviour().confidence(0.99).unsafe(UnsafeMerge.FLIP_EFFECT).rightWhenToldWhy(true);
        List<String> early = new ArrayList<>();

        Synthesis synthesis = synthesizer().synthesizeWithCalls(conflict(), ESCALATING,
                call -> early.add(call.model() + " " + call.disposition() + " before "
                        + standIn.stats().model("test-model-large") + " repair requests"));

        assertThat(MergeCheck.check(conflict(), synthesis.merge())).isEmpty();
        assertThat(synthesis.merge().producedBy().model()).isEqualTo("test-model-large");
        assertThat(synthesis.calls()).extracting(ProviderCall::pass, ProviderCall::model, ProviderCall::disposition)
                .containsExactly(
                        tuple(Pass.PRIMARY, "test-model", Disposition.REFUSED),
                        tuple(Pass.ESCALATION, "test-model-large", Disposition.ANSWER));
        assertThat(early).containsExactly("test-model REFUSED before 0 repair requests");
        assertThat(standIn.stats().repairs()).isEqualTo(1);
        assertThat(refusals(Code.RESOLVED_EFFECT_CHANGED)).isEqualTo(1.0);
        assertThat(refusals(Code.MERGED_EFFECT_CHANGED)).isEqualTo(1.0);
        assertThat(refusals(Code.MERGED_TARGET_WIDENED)).isZero();
        assertThat(registry.getSampleValue("llm_escalations_total")).as("a repair is not an unsure answer").isZero();
    }

    @Test
    void withoutAnEscalationModelTheRepairGoesToThePrimaryModelItself() throws Exception {
        standIn.behaviour().unsafe(UnsafeMerge.WIDEN_TARGET).rightWhenToldWhy(true);

        Synthesis synthesis = synthesizer().synthesizeWithCalls(conflict(), model("openai", "test-model"));

        assertThat(MergeCheck.check(conflict(), synthesis.merge())).isEmpty();
        assertThat(synthesis.merge().mergedRule().target()).isEqualTo("jira.create_issue");
        assertThat(synthesis.calls()).extracting(ProviderCall::pass, ProviderCall::model, ProviderCall::disposition)
                .containsExactly(
                        tuple(Pass.PRIMARY, "test-model", Disposition.REFUSED),
                        tuple(Pass.ESCALATION, "test-model", Disposition.ANSWER));
        assertThat(standIn.stats().path("/v1/chat/completions")).isEqualTo(2);
        assertThat(standIn.stats().repairs()).isEqualTo(1);
    }

    @Test
    void aRepairThatIsRefusedTooFailsTheAttemptWithBothCallsAndTheFindings() throws Exception {
        standIn.behaviour().unsafe(UnsafeMerge.FOREIGN_OWNER);

        InvalidAnswerException refused = catchThrowableOfType(
                () -> synthesizer().synthesizeWithCalls(conflict(), ESCALATING), InvalidAnswerException.class);

        assertThat(refused).isNotNull();
        assertThat(refused.getMessage())
                .startsWith("the merge check refused the answer of 'anthropic/test-model' [merged_owner_changed] and"
                        + " its repair by 'anthropic/test-model-large' [merged_owner_changed]: merged_owner_changed: ")
                .contains("pol-org-1");
        assertThat(refused.calls()).extracting(ProviderCall::pass, ProviderCall::disposition).containsExactly(
                tuple(Pass.PRIMARY, Disposition.REFUSED), tuple(Pass.ESCALATION, Disposition.REFUSED));
        assertThat(standIn.stats().repairs()).isEqualTo(1);
        assertThat(refusals(Code.MERGED_OWNER_CHANGED)).as("once per refused answer").isEqualTo(2.0);
    }

    @Test
    void aRepairPassThatCannotBeMadeFailsTheAttemptInsteadOfKeepingTheRefusedAnswer() throws Exception {
        standIn.behaviour().script(Scripted.answer(unsafeAnswer()),
                Scripted.raw(500, Map.of(), "{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"boom\"}}"));

        InvalidAnswerException refused = catchThrowableOfType(
                () -> synthesizer().synthesizeWithCalls(conflict(), ESCALATING), InvalidAnswerException.class);

        assertThat(refused).isNotNull();
        assertThat(refused.getMessage()).contains("[resolved_effect_changed, merged_effect_changed]")
                .contains("could not be made").contains("HTTP 500");
        assertThat(refused.calls()).extracting(ProviderCall::pass, ProviderCall::disposition).containsExactly(
                tuple(Pass.PRIMARY, Disposition.REFUSED), tuple(Pass.ESCALATION, Disposition.FAILED));
    }

    @Test
    void aRateLimitedRepairPassFailsTheAttemptToo() throws Exception {
        standIn.behaviour().script(Scripted.answer(unsafeAnswer()));
        standIn.behaviour().failNext(1, Failure.RATE_LIMITED);

        InvalidAnswerException refused = catchThrowableOfType(
                () -> synthesizer().synthesizeWithCalls(conflict(), ESCALATING), InvalidAnswerException.class);

        assertThat(refused).isNotNull();
        assertThat(refused.calls()).extracting(ProviderCall::disposition)
                .containsExactly(Disposition.REFUSED, Disposition.RATE_LIMITED);
    }

    @Test
    void anUnsureAnswerThatPassedIsKeptWhenTheEscalationsAnswerIsRefused() throws Exception {
        // The script's correct but unsure answer first; then the stand-in's own, unsafe even when asked again.
        standIn.behaviour().script(Scripted.answer(Fixtures.answer(0.4))).unsafe(UnsafeMerge.FLIP_EFFECT);

        Synthesis synthesis = synthesizer().synthesizeWithCalls(conflict(), ESCALATING);

        assertThat(synthesis.merge().producedBy().model()).isEqualTo("test-model");
        assertThat(MergeCheck.check(conflict(), synthesis.merge())).isEmpty();
        assertThat(synthesis.calls()).extracting(ProviderCall::pass, ProviderCall::disposition).containsExactly(
                tuple(Pass.PRIMARY, Disposition.ANSWER), tuple(Pass.ESCALATION, Disposition.REFUSED));
        assertThat(registry.getSampleValue("llm_escalations_total")).isEqualTo(1.0);
        assertThat(standIn.stats().repairs()).as("an escalation is asked afresh, not told why").isZero();
        assertThat(refusals(Code.MERGED_EFFECT_CHANGED)).isEqualTo(1.0);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "FLIP_EFFECT, resolved_effect_changed",
            "WIDEN_TARGET, merged_target_widened",
            "FOREIGN_OWNER, merged_owner_changed",
            "BASED_ON_LOSER, merged_rule_not_the_winner",
            "KEEP_CONTRADICTING_LOSER, contradicting_loser_kept",
            "REMOVE_STRICTER_LOSER, stricter_loser_removed"})
    void eachUnsafeAnswerOfTheStandInIsRefused(UnsafeMerge kind, String code) throws Exception {
        standIn.behaviour().unsafe(kind);
        ConflictSnapshot conflict = conflictWithAStricterLoser();

        InvalidAnswerException refused = catchThrowableOfType(
                () -> synthesizer().synthesizeWithCalls(conflict, model("anthropic", "test-model")),
                InvalidAnswerException.class);

        assertThat(refused).as("%s refused", kind).isNotNull();
        assertThat(refused.getMessage()).contains(code);
        assertThat(refused.calls()).hasSize(2).allSatisfy(call ->
                assertThat(call.disposition()).isEqualTo(Disposition.REFUSED));
    }

    /** A well-formed answer to {@link Fixtures#conflict()} that turns the winner's deny into an allow. */
    private static String unsafeAnswer() {
        return Fixtures.answer(0.9).replace("\"deny\"", "\"allow\"");
    }
}
