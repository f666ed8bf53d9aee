package io.mergesynthesis.service.models;

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
 * either. The worker passes the org's setting as it read it with the conflict, so it costs no read of its own.
 * Asked without it, the router reads the setting and remembers it for a few seconds per replica; a change through
 * the API is forgotten at once on the replica that made it, and within {@code remember} on the others.
 */
public final class ConfiguredRouter implements Router {

    private final ModelCatalog catalog;
    private final OrgModelCheck orgModels;
    private final LoadingCache<UUID, Optional<String>> orgSettings;

    /**
     * @param orgModel reads an org's model override (null when none); called at most once per org per
     *                 {@code remember}
     */
    public ConfiguredRouter(ModelCatalog catalog, Function<UUID, String> orgModel, Duration remember) {
        if (catalog.primary() == null) {
            throw new IllegalArgumentException("llm.primaryModel is not set: the router has no model to send to");
        }
        this.catalog = catalog;
        this.orgModels = OrgModelCheck.of(catalog);
        this.orgSettings = Caffeine.newBuilder()
                .expireAfterWrite(remember)
                .maximumSize(100_000)
                .build(org -> Optional.ofNullable(orgModel.apply(org)));
    }

    /**
     * Resolves with the setting the worker read along with the conflict, which is fresher than anything
     * remembered; nothing is read and nothing remembered.
     */
    @Override
    public ResolvedModel resolve(String functionKey, UUID orgId, String orgModelSetting) throws RouterException {
        return route(functionKey, Optional.ofNullable(orgModelSetting));
    }

    @Override
    public ResolvedModel resolve(String functionKey, UUID orgId) throws RouterException {
        Optional<String> setting;
        try {
            setting = orgSettings.get(orgId);
        } catch (RuntimeException e) {
            throw new RouterException("could not read the model setting of org " + orgId, e);
        }
        return route(functionKey, setting);
    }

    private ResolvedModel route(String functionKey, Optional<String> orgModelSetting) throws RouterException {
        if (!MERGE_SYNTHESIS.equals(functionKey)) {
            throw new RouterException("no model is configured for function " + functionKey);
        }
        // An override this replica cannot serve is refused rather than swapped for the primary behind the
        // platform's back; the worker asks the same check first and holds such an org's conflicts back.
        Optional<ModelCatalog.Unusable> unservable = orgModels.unservable(orgModelSetting.orElse(null));
        if (unservable.isPresent()) {
            throw new RouterException("the org's " + unservable.get().describe());
        }
        String chosen = orgModelSetting.orElse(catalog.primary());
        String escalation = catalog.escalation();
        ResolvedModel behind = escalation == null || escalation.equals(chosen) ? null
                : model(functionKey, escalation, null);
        return model(functionKey, chosen, behind);
    }

    /** Forgets what this replica remembers of an org's settings, after they changed. */
    public void forget(UUID orgId) {
        orgSettings.invalidate(orgId);
    }

    private static ResolvedModel model(String functionKey, String qualified, ResolvedModel escalation) {
        int slash = qualified.indexOf('/');
        return new ResolvedModel(functionKey, qualified.substring(0, slash), qualified.substring(slash + 1), escalation);
    }
}
