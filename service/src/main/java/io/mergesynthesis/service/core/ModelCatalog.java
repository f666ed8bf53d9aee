package io.mergesynthesis.service.core;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.math.BigDecimal;
import java.util.List;
import java.util.Optional;

/**
 * The models this deployment is configured with, by their {@code provider/model} names, with their prices: what
 * an org's model override may name, and what {@code GET /v1/models} lists. Names come from configuration only.
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

    /** One configured model and its price in USD per million tokens. */
    @JsonPropertyOrder({"name", "provider", "input_per_million_usd", "output_per_million_usd",
            "cache_read_per_million_usd", "cache_write_per_million_usd"})
    public record Model(
            @JsonProperty("name") String name,
            @JsonProperty("provider") String provider,
            @JsonProperty("input_per_million_usd") BigDecimal inputPerMillionUsd,
            @JsonProperty("output_per_million_usd") BigDecimal outputPerMillionUsd,
            @JsonProperty("cache_read_per_million_usd") BigDecimal cacheReadPerMillionUsd,
            @JsonProperty("cache_write_per_million_usd") BigDecimal cacheWritePerMillionUsd) {
    }

    public ModelCatalog {
        models = List.copyOf(models);
    }

    public static ModelCatalog empty() {
        return new ModelCatalog(List.of(), null, null);
    }

    public Optional<Model> find(String name) {
        return models.stream().filter(m -> m.name().equals(name)).findFirst();
    }

    /** The configured names, for messages that list what may be chosen. */
    @JsonIgnore
    public List<String> names() {
        return models.stream().map(Model::name).toList();
    }
}
