package io.mergesynthesis.llm;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code llm:} block of the service's configuration: the route's models, the providers that serve them
 * and the price of each model. Plain getters and setters so that Jackson binds it and {@code -Ddw.llm.*}
 * overrides work; {@link #problems()} says what stops it from being used.
 */
public final class LlmSettings {

    private String primaryModel;
    private String escalationModel;
    private double escalateBelow = 0.7;
    private Duration concurrencyWait = Duration.ofSeconds(2);
    private CircuitSettings circuit = new CircuitSettings();
    private Map<String, ProviderSettings> providers = new LinkedHashMap<>();
    private Map<String, ModelPrice> models = new LinkedHashMap<>();
    private BatchSettings batch = new BatchSettings();

    /**
     * What is wrong with these settings for serving the route, one readable message each; empty when nothing
     * is. No message ever contains a key.
     */
    public List<String> problems() {
        List<String> problems = new ArrayList<>();
        if (escalateBelow < 0 || escalateBelow > 1) {
            problems.add("llm.escalateBelow is " + escalateBelow + ": it must be between 0 and 1");
        }
        problems.addAll(circuit.problems());
        providers.forEach((name, provider) -> problems.addAll(providerProblems(name, provider)));
        models.forEach((model, price) -> {
            if (price != null && price.getMinCachedPrefixTokens() != null && price.getMinCachedPrefixTokens() < 1) {
                problems.add("model '" + model + "' has minCachedPrefixTokens " + price.getMinCachedPrefixTokens()
                        + ": at least 1, or leave it out to never mark a prefix cacheable");
            }
        });
        for (String model : models.keySet()) {
            String provider = ModelName.providerOf(model);
            if (provider == null) {
                problems.add("model '" + model + "' under llm.models is not written as <provider>/<model>");
            } else if (!providers.containsKey(provider)) {
                problems.add("model '" + model + "' under llm.models names provider '" + provider
                        + "', which is not configured (configured: " + String.join(", ", providers.keySet()) + ")");
            }
        }
        if (primaryModel == null || primaryModel.isBlank()) {
            problems.add("llm.primaryModel is not set");
        } else {
            problems.addAll(routeModelProblems("llm.primaryModel", primaryModel));
        }
        if (escalationModel != null && !escalationModel.isBlank()) {
            problems.addAll(routeModelProblems("llm.escalationModel", escalationModel));
        }
        return problems;
    }

    private List<String> routeModelProblems(String setting, String model) {
        List<String> problems = new ArrayList<>();
        String providerName = ModelName.providerOf(model);
        if (providerName == null) {
            problems.add(setting + " is '" + model + "': write it as <provider>/<model>, e.g. anthropic/<model>");
            return problems;
        }
        ProviderSettings provider = providers.get(providerName);
        if (provider == null) {
            problems.add(setting + " '" + model + "' names provider '" + providerName
                    + "', which is not configured (configured: " + String.join(", ", providers.keySet()) + ")");
        } else if (!provider.hasKey()) {
            problems.add("provider '" + providerName + "' has no API key: set " + provider.keyVariable());
        }
        if (!models.containsKey(model)) {
            problems.add(setting + " '" + model + "' has no price: add it under llm.models with "
                    + "inputPerMillionUsd and outputPerMillionUsd");
        }
        return problems;
    }

    private static List<String> providerProblems(String name, ProviderSettings provider) {
        List<String> problems = new ArrayList<>();
        if (provider == null) {
            problems.add("provider '" + name + "' is empty");
            return problems;
        }
        if (provider.getType() == null) {
            problems.add("provider '" + name + "' has no type: set anthropic or openai");
        }
        if (provider.trimmedBaseUrl().isEmpty()) {
            problems.add("provider '" + name + "' has no baseUrl");
        } else if (!provider.trimmedBaseUrl().startsWith("http://") && !provider.trimmedBaseUrl().startsWith("https://")) {
            problems.add("provider '" + name + "' has baseUrl '" + provider.trimmedBaseUrl()
                    + "': it must start with http:// or https://");
        }
        if (provider.getMaxConcurrency() < 1) {
            problems.add("provider '" + name + "' has maxConcurrency " + provider.getMaxConcurrency() + ": at least 1");
        }
        if (provider.getMaxOutputTokens() < 1) {
            problems.add("provider '" + name + "' has maxOutputTokens " + provider.getMaxOutputTokens() + ": at least 1");
        }
        if (provider.getMaxAnswerBytes() < 1) {
            problems.add("provider '" + name + "' has maxAnswerBytes " + provider.getMaxAnswerBytes() + ": at least 1");
        }
        return problems;
    }

    public String getPrimaryModel() {
        return primaryModel;
    }

    public void setPrimaryModel(String primaryModel) {
        this.primaryModel = primaryModel;
    }

    public String getEscalationModel() {
        return escalationModel;
    }

    public void setEscalationModel(String escalationModel) {
        this.escalationModel = escalationModel;
    }

    public double getEscalateBelow() {
        return escalateBelow;
    }

    public void setEscalateBelow(double escalateBelow) {
        this.escalateBelow = escalateBelow;
    }

    /** How long a call waits for a free slot under the provider's concurrency limit before it is deferred. */
    public Duration getConcurrencyWait() {
        return concurrencyWait;
    }

    @JsonDeserialize(using = DurationText.class)
    public void setConcurrencyWait(Duration concurrencyWait) {
        this.concurrencyWait = concurrencyWait;
    }

    /** When a provider counts as down, and how it is probed meanwhile. */
    public CircuitSettings getCircuit() {
        return circuit;
    }

    public void setCircuit(CircuitSettings circuit) {
        this.circuit = circuit == null ? new CircuitSettings() : circuit;
    }

    public Map<String, ProviderSettings> getProviders() {
        return providers;
    }

    public void setProviders(Map<String, ProviderSettings> providers) {
        this.providers = providers == null ? new LinkedHashMap<>() : new LinkedHashMap<>(providers);
    }

    public Map<String, ModelPrice> getModels() {
        return models;
    }

    public void setModels(Map<String, ModelPrice> models) {
        this.models = models == null ? new LinkedHashMap<>() : new LinkedHashMap<>(models);
    }

    /** The batch lane's settings. */
    public BatchSettings getBatch() {
        return batch;
    }

    public void setBatch(BatchSettings batch) {
        this.batch = batch == null ? new BatchSettings() : batch;
    }

    @Override
    public String toString() {
        return "LlmSettings{primaryModel=" + primaryModel + ", escalationModel=" + escalationModel
                + ", escalateBelow=" + escalateBelow + ", concurrencyWait=" + concurrencyWait + ", circuit=" + circuit
                + ", providers=" + providers + ", models=" + models + "}";
    }
}
