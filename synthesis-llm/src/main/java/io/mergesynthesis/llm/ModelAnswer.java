package io.mergesynthesis.llm;

import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.Effect;
import io.mergesynthesis.synthesis.PolicyRule;
import io.mergesynthesis.synthesis.SuggestedMerge;
import io.mergesynthesis.synthesis.SuggestedMerge.LoserAction;
import io.mergesynthesis.synthesis.SuggestedMerge.MergedRule;
import io.mergesynthesis.synthesis.SuggestedMerge.ProducedBy;
import io.mergesynthesis.synthesis.SuggestedMerge.RuleRef;
import java.time.Instant;
import java.util.List;

/**
 * The five fields a model answers, already checked against the conflict. The rest of a merge comes from the
 * conflict and the synthesizer, never from the model.
 *
 * @param loserActions in the order the conflict reports its losers
 */
record ModelAnswer(Effect resolvedEffect, MergedRule mergedRule, List<LoserAction> loserActions, String rationale,
                   double confidence) {

    SuggestedMerge toMerge(ConflictSnapshot conflict, PolicyRule winner, ProducedBy producedBy, Instant generatedAt) {
        return new SuggestedMerge(
                SuggestedMerge.SCHEMA_VERSION,
                conflict.conflictId(),
                RuleRef.of(winner),
                conflict.losers().stream().map(RuleRef::of).toList(),
                resolvedEffect,
                mergedRule,
                loserActions,
                rationale,
                confidence,
                producedBy,
                generatedAt);
    }
}
