package io.mergesynthesis.llm;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.mergesynthesis.llm.anthropic.AnthropicProtocol;
import io.mergesynthesis.llm.openai.OpenAiProtocol;
import java.util.function.Supplier;

/**
 * The wire protocols a provider can speak. Anything OpenAI-compatible (vLLM, Ollama, LiteLLM) is {@code openai}.
 * A further protocol is one package and one line here.
 */
public enum ProviderType {
    @JsonProperty("anthropic") ANTHROPIC("ANTHROPIC_API_KEY", AnthropicProtocol::new),
    @JsonProperty("openai") OPENAI("OPENAI_API_KEY", OpenAiProtocol::new);

    private final String usualKeyVariable;
    private final Supplier<WireProtocol> protocol;

    ProviderType(String usualKeyVariable, Supplier<WireProtocol> protocol) {
        this.usualKeyVariable = usualKeyVariable;
        this.protocol = protocol;
    }

    WireProtocol protocol() {
        return protocol.get();
    }

    /** The environment variable the shipped configuration reads this type's key from. */
    public String usualKeyVariable() {
        return usualKeyVariable;
    }

    public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
