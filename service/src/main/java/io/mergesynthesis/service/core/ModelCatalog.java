package io.mergesynthesis.service.core;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.math.BigDecimal;
import java.util.List;
import java.util.Optional;

/**
 * The models this deployment is configured with, by their {@code provider/model} names, with their prices and
 * whether this replica can serve each: what an org's model override may name, and what {@code GET /v1/models}
 * lists. Names come from configuration only.
 *
 * <p>{@link #unusable} is the one rule for which model an org may have: the settings API and the operator page
 * refuse what it refuses, and the worker and the health check hold back what it refuses among stored settings.
 *
 * @param primary    the route's primary model, or null when no model is configured (the stub alone)
 * @param escalation the route's escalation model, or null
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
@JsonPropertyOrder({"primary", "escalation", "models"})
public record ModelCatalog(
        @JsonProperty("models") List<Model> models,
        @JsonProperty("primary") String primary,
        @JsonProperty("escalation") String escalation) {

    /**
     * One configured model and its price in USD per million tokens.
     *
     * @param usable         whether this replica can call it: its provider is configured and has a key
     * @param unusableReason why not, or null when usable
     * @param keyVariable    the environment variable to set when the provider's key is what is missing, else null
     */
    @JsonPropertyOrder({"name", "provider", "usable", "unusable_reason", "key_variable", "input_per_million_usd",
            "output_per_million_usd", "cache_read_per_million_usd", "cache_write_per_million_usd"})
    public record Model(
            @JsonProperty("name") String name,
            @JsonProperty("provider") String provider,
            @JsonProperty("input_per_million_usd") BigDecimal inputPerMillionUsd,
            @JsonProperty("output_per_million_usd") BigDecimal outputPerMillionUsd,
            @JsonProperty("cache_read_per_million_usd") BigDecimal cacheReadPerMillionUsd,
            @JsonProperty("cache_write_per_million_usd") BigDecimal cacheWritePerMillionUsd,
            @JsonProperty("usable") boolean usable,
            @JsonProperty("unusable_reason") String unusableReason,
            @JsonProperty("key_variable") String keyVariable) {

        /** A model this replica can serve. */
        public Model(String name, String provider, BigDecimal inputPerMillionUsd, BigDecimal outputPerMillionUsd,
                     BigDecimal cacheReadPerMillionUsd, BigDecimal cacheWritePerMillionUsd) {
            this(name, provider, inputPerMillionUsd, outputPerMillionUsd, cacheReadPerMillionUsd,
                    cacheWritePerMillionUsd, true, null, null);
        }
    }

    /**
     * Why a model cannot be an org's model on this replica.
     *
     * @param configured  false when the model is not in the configuration at all
     * @param reason      a sentence saying why, naming what to do; never a key
     * @param keyVariable the environment variable to set, when a missing key is the reason; else null
     */
    public record Unusable(String model, boolean configured, String reason, String keyVariable) {

        /** The reason with the model named, for a log line, a health check or a deferral. */
        public String describe() {
            return "model '" + model + "' " + reason;
        }
    }

    public ModelCatalog {
        models = List.copyOf(models);
    }

    public static ModelCatalog empty() {
        return new ModelCatalog(List.of(), null, null);
    }

    /**
     * This catalog as a replica whose synthesizer calls no model sees it: every model still listed with its
     * price, none usable, each for {@code reason}; no route. An org's model would be stored and never used there.
     */
    public ModelCatalog servingNoModel(String reason) {
        return new ModelCatalog(models.stream().map(m -> new Model(m.name(), m.provider(), m.inputPerMillionUsd(),
                m.outputPerMillionUsd(), m.cacheReadPerMillionUsd(), m.cacheWritePerMillionUsd(), false, reason,
                null)).toList(), null, null);
    }

    public Optional<Model> find(String name) {
        return models.stream().filter(m -> m.name().equals(name)).findFirst();
    }

    /** Why {@code name} cannot be an org's model on this replica; empty when it can. */
    public Optional<Unusable> unusable(String name) {
        Optional<Model> model = find(name);
        if (model.isEmpty()) {
            return Optional.of(new Unusable(name, false, "is not one of the configured models: "
                    + (models.isEmpty() ? "(none are configured)" : String.join(", ", names())), null));
        }
        Model found = model.get();
        return found.usable() ? Optional.empty()
                : Optional.of(new Unusable(name, true, found.unusableReason(), found.keyVariable()));
    }

    /** The configured names, for messages that list what may be chosen. */
    @JsonIgnore
    public List<String> names() {
        return models.stream().map(Model::name).toList();
    }
}
