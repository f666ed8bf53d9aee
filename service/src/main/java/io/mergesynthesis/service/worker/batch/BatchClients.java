package io.mergesynthesis.service.worker.batch;

import io.mergesynthesis.llm.anthropic.AnthropicBatches;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** One batch client per configured provider, made when first needed. */
final class BatchClients {

    private final Map<String, AnthropicBatches> byProvider = new ConcurrentHashMap<>();

    AnthropicBatches of(BatchRoute route) {
        return byProvider.computeIfAbsent(route.provider(), name -> new AnthropicBatches(route.settings()));
    }
}
