package io.mergesynthesis.synthesis;

import com.fasterxml.jackson.annotation.JsonProperty;

/** The kind of thing a person or agent tried to do. */
public enum Action {
    @JsonProperty("tool_call") TOOL_CALL,
    @JsonProperty("data_export") DATA_EXPORT,
    @JsonProperty("knowledge_query") KNOWLEDGE_QUERY;

    public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
