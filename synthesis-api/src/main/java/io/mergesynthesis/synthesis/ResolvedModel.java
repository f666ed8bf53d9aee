package io.mergesynthesis.synthesis;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The model a {@link Router} picked for one call. Only the router names models; synthesizers receive one.
 *
 * @param functionKey the product function the model was resolved for, e.g. {@link Router#MERGE_SYNTHESIS}
 * @param provider    who serves the model ({@code stub} for the deterministic stub)
 * @param model       the provider's model name
 */
public record ResolvedModel(
        @JsonProperty("function_key") String functionKey,
        @JsonProperty("provider") String provider,
        @JsonProperty("model") String model) {
}
