package io.mergesynthesis.drills;

import io.mergesynthesis.standin.StandInProvider;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The environment that puts a replica, with the shipped {@code config.yml}, on the LLM path against the stand-in
 * provider: the stand-in plays both the {@code local} provider (OpenAI protocol) and {@code anthropic}, which the
 * shipped route escalates to, so that no drill can reach a real provider.
 */
final class StandInEnvironment {

    private StandInEnvironment() {
    }

    /**
     * @param primary the route's primary model, e.g. {@code local/stand-in}; its model name is what the
     *                {@code local} provider is configured with
     * @return a map the drill may add to
     */
    static Map<String, String> of(StandInProvider standIn, String key, String primary) {
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put("SYNTHESIZER", "llm");
        environment.put("LLM_PRIMARY_MODEL", primary);
        environment.put("LOCAL_LLM_BASE_URL", standIn.openAiBaseUrl());
        environment.put("LOCAL_LLM_MODEL", primary.substring(primary.indexOf('/') + 1));
        environment.put("LOCAL_LLM_API_KEY", key);
        environment.put("ANTHROPIC_BASE_URL", standIn.anthropicBaseUrl());
        environment.put("ANTHROPIC_API_KEY", key);
        return environment;
    }
}
