package io.mergesynthesis.service.worker.batch;

import io.mergesynthesis.llm.ProviderBatches;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** One batch client per configured provider, in its protocol, made when first needed. */
final class BatchClients {

    private final Map<String, ProviderBatches> byProvider = new ConcurrentHashMap<>();

    ProviderBatches of(BatchRoute route) {
        return byProvider.computeIfAbsent(route.provider(), name -> ProviderBatches.of(route.settings()));
    }
}
