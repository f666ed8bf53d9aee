package io.mergesynthesis.llm;

import com.fasterxml.jackson.annotation.JsonProperty;

/** The two wire protocols a provider can speak. Anything OpenAI-compatible (vLLM, Ollama, LiteLLM) is {@code openai}. */
public enum ProviderType {
    @JsonProperty("anthropic") ANTHROPIC("ANTHROPIC_API_KEY"),
    @JsonProperty("openai") OPENAI("OPENAI_API_KEY");

    private final String usualKeyVariable;

    ProviderType(String usualKeyVariable) {
        this.usualKeyVariable = usualKeyVariable;
    }

    /** The environment variable the shipped configuration reads this type's key from. */
    public String usualKeyVariable() {
        return usualKeyVariable;
    }

    public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
