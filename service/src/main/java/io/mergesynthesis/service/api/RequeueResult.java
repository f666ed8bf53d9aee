package io.mergesynthesis.service.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * The answer to a re-queue: how many conflicts went back to pending, and for a single conflict its synthesis
 * state and the conflict as it now stands.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"requeued", "synthesis_state", "conflict"})
public record RequeueResult(
        @JsonProperty("requeued") long requeued,
        @JsonProperty("synthesis_state") String synthesisState,
        @JsonProperty("conflict") ConflictView conflict) {

    public static RequeueResult of(ConflictView conflict) {
        return new RequeueResult(1, conflict.synthesis().state(), conflict);
    }

    public static RequeueResult count(long requeued) {
        return new RequeueResult(requeued, null, null);
    }
}
