package io.mergesynthesis.service.synthesis;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import io.mergesynthesis.service.core.ModelCatalog;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.Router;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;

/**
 * The router built from configuration: the route {@code conflict.merge_synthesis} goes to the org's own model
 * when the platform set one, else to the configured primary model, with the configured escalation model behind
 * either. An org's override is remembered for a few seconds per replica, so the worker does not read it for every
 * conflict; a change through the API is forgotten at once on the replica that made it, and within
 * {@code remember} on the others.
 */
public final class ConfiguredRouter implements Router {

    private final ModelCatalog catalog;
    private final LoadingCache<UUID, Optional<String>> orgModels;

    /**
     * @param orgModel reads an org's model override (null when none); called at most once per org per
     *                 {@code remember}
     */
    public ConfiguredRouter(ModelCatalog catalog, Function<UUID, String> orgModel, Duration remember) {
        if (catalog.primary() == null) {
            throw new IllegalArgumentException("llm.primaryModel is not set: the router has no model to send to");
        }
        this.catalog = catalog;
        this.orgModels = Caffeine.newBuilder()
                .expireAfterWrite(remember)
                .maximumSize(100_000)
                .build(org -> Optional.ofNullable(orgModel.apply(org)));
    }

    @Override
    public ResolvedModel resolve(String functionKey, UUID orgId) throws RouterException {
        if (!MERGE_SYNTHESIS.equals(functionKey)) {
            throw new RouterException("no model is configured for function " + functionKey);
        }
        String chosen;
        try {
            // An override naming a model no longer configured falls back to the primary rather than failing
            // every conflict of the org; the settings view shows which model is in effect.
            chosen = orgModels.get(orgId).filter(name -> catalog.find(name).isPresent()).orElse(catalog.primary());
        } catch (RuntimeException e) {
            throw new RouterException("could not read the model setting of org " + orgId, e);
        }
        String escalation = catalog.escalation();
        ResolvedModel behind = escalation == null || escalation.equals(chosen) ? null
                : model(functionKey, escalation, null);
        return model(functionKey, chosen, behind);
    }

    /** Forgets what this replica remembers of an org's settings, after they changed. */
    public void forget(UUID orgId) {
        orgModels.invalidate(orgId);
    }

    private static ResolvedModel model(String functionKey, String qualified, ResolvedModel escalation) {
        int slash = qualified.indexOf('/');
        return new ResolvedModel(functionKey, qualified.substring(0, slash), qualified.substring(slash + 1), escalation);
    }
}
