package io.mergesynthesis.service.worker.batch;

import io.mergesynthesis.llm.LlmSettings;
import io.mergesynthesis.llm.ModelPrice;
import io.mergesynthesis.llm.ProviderSettings;
import io.mergesynthesis.llm.ProviderType;
import java.util.Optional;

/**
 * Where an org's batches go: the org's model, else the primary, its provider and its price. A provider that
 * speaks Anthropic's Message Batches or OpenAI's Batch API has a batch lane; an org routed elsewhere keeps its
 * conflicts waiting in the batch lane, and its batch worker says why in the log.
 *
 * @param qualifiedModel {@code provider/model}, as the ledger and the prices name it
 */
record BatchRoute(String provider, String model, String qualifiedModel, ProviderSettings settings, ModelPrice price) {

    /** Whether a provider has a batch lane here: both protocols have a batch API. */
    static boolean takesBatches(ProviderSettings provider) {
        return provider.getType() == ProviderType.ANTHROPIC || provider.getType() == ProviderType.OPENAI;
    }

    ProviderType type() {
        return settings.getType();
    }

    static Optional<BatchRoute> of(LlmSettings llm, String orgModel) {
        String qualified = orgModel != null ? orgModel : llm.getPrimaryModel();
        if (qualified == null || !qualified.contains("/")) {
            return Optional.empty();
        }
        String provider = qualified.substring(0, qualified.indexOf('/'));
        ProviderSettings settings = llm.getProviders().get(provider);
        ModelPrice price = llm.getModels().get(qualified);
        if (settings == null || price == null || !takesBatches(settings)) {
            return Optional.empty();
        }
        return Optional.of(new BatchRoute(provider, qualified.substring(provider.length() + 1), qualified, settings,
                price));
    }
}
