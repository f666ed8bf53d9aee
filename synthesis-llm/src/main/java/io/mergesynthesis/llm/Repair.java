package io.mergesynthesis.llm;

import io.mergesynthesis.synthesis.MergeFinding;
import java.util.List;
import java.util.Objects;

/**
 * What a second pass is told about the first: the answer the merge check refused, as the JSON the model gave,
 * and the check's findings. The request puts the refused answer back as the model's own turn and the findings
 * in the user's turn after it, so the second pass repairs rather than starts over.
 */
public record Repair(String refusedAnswer, List<MergeFinding> findings) {

    public Repair {
        Objects.requireNonNull(refusedAnswer, "refusedAnswer");
        findings = List.copyOf(findings);
        if (findings.isEmpty()) {
            throw new IllegalArgumentException("a repair needs the findings that refused the answer");
        }
    }
}
