package io.mergesynthesis.synthesis;

import com.fasterxml.jackson.annotation.JsonProperty;

/** What a policy rule does to its target. */
public enum Effect {
    @JsonProperty("allow") ALLOW,
    @JsonProperty("deny") DENY,
    @JsonProperty("require_approval") REQUIRE_APPROVAL;

    public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
