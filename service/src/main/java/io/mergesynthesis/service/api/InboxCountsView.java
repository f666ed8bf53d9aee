package io.mergesynthesis.service.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.mergesynthesis.service.core.InboxCounts;
import io.mergesynthesis.service.core.InboxStatus;
import io.mergesynthesis.service.core.SynthesisState;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An org's conflicts counted, as {@code GET /v1/conflicts/counts} answers: every synthesis state and inbox status
 * by its wire name, zero included, and the total.
 */
public record InboxCountsView(@JsonProperty("total") long total,
                              @JsonProperty("synthesis_state") Map<String, Long> bySynthesisState,
                              @JsonProperty("inbox_status") Map<String, Long> byInboxStatus) {

    public static InboxCountsView of(InboxCounts counts) {
        Map<String, Long> states = new LinkedHashMap<>();
        for (Map.Entry<SynthesisState, Long> e : counts.bySynthesisState().entrySet()) {
            states.put(e.getKey().wireName(), e.getValue());
        }
        Map<String, Long> statuses = new LinkedHashMap<>();
        for (Map.Entry<InboxStatus, Long> e : counts.byInboxStatus().entrySet()) {
            statuses.put(e.getKey().wireName(), e.getValue());
        }
        return new InboxCountsView(counts.total(), states, statuses);
    }
}
