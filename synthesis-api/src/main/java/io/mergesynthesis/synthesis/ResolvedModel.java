package io.mergesynthesis.synthesis;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The model a {@link Router} picked for one call. Only the router names models; synthesizers receive one.
 *
 * @param functionKey the product function the model was resolved for, e.g. {@link Router#MERGE_SYNTHESIS}
 * @param provider    who serves the model ({@code stub} for the deterministic stub)
 * @param model       the provider's model name
 * @param escalation  the model to ask again when this one's answer is not confident enough, or {@code null}
 */
public record ResolvedModel(
        @JsonProperty("function_key") String functionKey,
        @JsonProperty("provider") String provider,
        @JsonProperty("model") String model,
        @JsonProperty("escalation") @JsonInclude(JsonInclude.Include.NON_NULL) ResolvedModel escalation) {

    /** A model with no escalation, as every router wrote before escalation existed. */
    public ResolvedModel(String functionKey, String provider, String model) {
        this(functionKey, provider, model, null);
    }

    /** {@code provider/model}, the form configuration names models in. */
    public String qualifiedName() {
        return provider + "/" + model;
    }
}
