package io.mergesynthesis.synthesis;

import com.fasterxml.jackson.annotation.JsonProperty;

/** The four policy layers, strongest first. */
public enum Scope {
    @JsonProperty("platform") PLATFORM,
    @JsonProperty("org") ORG,
    @JsonProperty("org_unit") ORG_UNIT,
    @JsonProperty("member") MEMBER;

    /** The name used on the wire and in the database. */
    public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** True when this layer sits above {@code other} (is stronger). */
    public boolean isAbove(Scope other) {
        return ordinal() < other.ordinal();
    }
}
