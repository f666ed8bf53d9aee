package io.mergesynthesis.llm;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.mergesynthesis.llm.anthropic.AnthropicDialect;
import io.mergesynthesis.llm.anthropic.AnthropicProtocol;
import io.mergesynthesis.llm.openai.OpenAiDialect;
import io.mergesynthesis.llm.openai.OpenAiProtocol;
import io.mergesynthesis.llm.standin.Dialect;
import java.util.function.Supplier;

/**
 * The wire protocols a provider can speak, each with the stand-in's imitation of it. Anything OpenAI-compatible
 * (vLLM, Ollama, LiteLLM) is {@code openai}. A further protocol is one package and one line here.
 */
public enum ProviderType {
    @JsonProperty("anthropic") ANTHROPIC("ANTHROPIC_API_KEY", AnthropicProtocol::new, AnthropicDialect::new),
    @JsonProperty("openai") OPENAI("OPENAI_API_KEY", OpenAiProtocol::new, OpenAiDialect::new);

    private final String usualKeyVariable;
    private final Supplier<WireProtocol> protocol;
    private final Supplier<Dialect> standInDialect;

    ProviderType(String usualKeyVariable, Supplier<WireProtocol> protocol, Supplier<Dialect> standInDialect) {
        this.usualKeyVariable = usualKeyVariable;
        this.protocol = protocol;
        this.standInDialect = standInDialect;
    }

    WireProtocol protocol() {
        return protocol.get();
    }

    /** How the stand-in provider speaks this protocol. */
    public Dialect standInDialect() {
        return standInDialect.get();
    }

    /** The environment variable the shipped configuration reads this type's key from. */
    public String usualKeyVariable() {
        return usualKeyVariable;
    }

    public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
